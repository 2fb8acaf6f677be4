// Installs the real Claude Code and Codex CLIs (about 770 MB) that one compatibility test drives,
// into .cache/test-clis rather than into every user's node_modules. `.ci/run` calls it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

export const testCliVersions = { "@anthropic-ai/claude-code": "2.1.330", "@openai/codex": "0.169.0" };
const prefix = join(import.meta.dirname, "..", ".cache", "test-clis");
const wanted = Object.entries(testCliVersions).map(([name, version]) => `${name}@${version}`);
const installed = ["claude", "codex"].every((bin) => existsSync(join(prefix, "node_modules", ".bin", bin)));
if (installed) {
  console.log(`test CLIs present in ${prefix}`);
} else {
  mkdirSync(prefix, { recursive: true });
  execFileSync("npm", ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", ...wanted], {
    stdio: "inherit",
  });
}
