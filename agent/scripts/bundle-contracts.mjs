// npm pack's prepack and postpack step. The agent imports @pod-gateway/contracts, a package of
// this repository that is not on any registry: in the packed tarball its `file:../packages/contracts`
// spec would point nowhere once installed. So the pack carries a copy (bundleDependencies) and
// the copy's manifest drops its own dependencies: npm expects a bundled package's dependencies
// inside the bundle and would leave them empty; zod comes from the agent's own dependencies instead.
// `--remove` (postpack) deletes the copy so the repository's agent keeps resolving the live sources.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";

const agentRoot = new URL("../", import.meta.url);
const source = new URL("../packages/contracts/", agentRoot);
const target = new URL("node_modules/@pod-gateway/contracts/", agentRoot);

rmSync(target, { recursive: true, force: true });
if (!process.argv.includes("--remove")) {
  mkdirSync(target, { recursive: true });
  const manifest = JSON.parse(readFileSync(new URL("package.json", source), "utf8"));
  delete manifest.dependencies;
  writeFileSync(new URL("package.json", target), `${JSON.stringify(manifest, null, 2)}\n`);
  cpSync(new URL("src/", source), new URL("src/", target), { recursive: true });
}
