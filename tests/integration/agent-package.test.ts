import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { generateKeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/**
 * The docs' provider quick start installs pod-agent as a packed tarball: `cd agent && npm pack`
 * then `npm install -g ./pod-agent-0.1.0.tgz`. Done here in a temporary copy of the two folders a
 * clone has (no repository node_modules to lean on) into a temporary global prefix; then the
 * installed `pod-agent` prints its help, enrolls with a gateway and validates a backend. The
 * contracts package is not on any registry, so it must travel inside the tarball.
 *
 * Two flags differ from the docs, both to stay offline and small: `--omit=optional` leaves out
 * node-llama-cpp's prebuilt llama.cpp builds (about 740 MB with CUDA; nothing here loads a model)
 * and `--ignore-scripts` its postinstall, which would fetch a build when none is installed.
 */

const repoRoot = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);

let work: string;
let prefix: string;
let podAgentBin: string;
let installFailure: string | undefined;
/** What `npm install -g` printed (its warnings). */
let installOutput = "";
let gateway: TestGateway;
let backend: FakeUpstream;

async function podAgent(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(podAgentBin, args, {
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pod-agent-package-"));
  // What a clone holds for the agent: agent/ and packages/contracts/, without node_modules.
  for (const part of ["bin", "src", "scripts", "package.json"])
    cpSync(join(repoRoot, "agent", part), join(work, "agent", part), { recursive: true });
  for (const part of ["src", "package.json"])
    cpSync(join(repoRoot, "packages/contracts", part), join(work, "packages/contracts", part), {
      recursive: true,
    });
  await run("npm", ["pack", "--silent"], { cwd: join(work, "agent"), timeout: 120_000 });
  const tarball = readdirSync(join(work, "agent")).find((name) => name.endsWith(".tgz"));
  if (tarball === undefined) throw new Error("npm pack wrote no tarball");
  prefix = join(work, "prefix");
  mkdirSync(prefix);
  try {
    const installed = await run(
      "npm",
      [
        "install",
        "-g",
        "--prefix",
        prefix,
        `./${tarball}`,
        "--prefer-offline",
        "--omit=optional",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
      ],
      { cwd: join(work, "agent"), timeout: 540_000 },
    );
    installOutput = `${installed.stdout}${installed.stderr}`;
  } catch (error) {
    const output = `${(error as { stderr?: string }).stderr ?? ""}`;
    // No registry and nothing cached: nothing to learn about the package here.
    if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH/.test(output)) {
      installFailure = `agent package test skipped: npm could not reach its registry (${output.slice(0, 200)})`;
      console.warn(installFailure);
    } else throw error;
  }
  podAgentBin = join(prefix, "bin", "pod-agent");
  gateway = await startTestGateway({});
  backend = await startFakeUpstream("openai", "packaged-agent-backend");
}, 600_000);

afterAll(async () => {
  await backend?.close();
  await gateway?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("pod-agent installed from its packed tarball", () => {
  it("carries the contracts package inside the tarball and prints its help", async (context) => {
    if (installFailure) context.skip();
    expect(
      readdirSync(join(prefix, "lib/node_modules/pod-agent/node_modules/@pod-gateway/contracts/src")),
    ).toContain("agent-protocol.ts");
    const help = await podAgent(["--help"]);
    expect(help.output).toContain("usage: pod-agent");
    expect(help.code).toBe(0);
  });

  it("warns of no engine the docs do not explain: each package npm finds wanting a newer Node is named on the agent's page", async (context) => {
    if (installFailure) context.skip();
    // npm prints "EBADENGINE Unsupported engine { package: 'commander@15.0.0', required: …" per package.
    const wanting = [...installOutput.matchAll(/EBADENGINE\s+package: '(@?[^@']+)@[^']*'/g)].map(
      (match) => match[1],
    );
    // And the warning the docs describe is real where they say it is (Node before 22.12).
    const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
    if (major < 22 || (major === 22 && minor < 12)) expect(wanting).toContain("commander");
    const docs = readFileSync(join(repoRoot, "content/docs/providers/agent.mdx"), "utf8");
    for (const name of wanting)
      expect(docs, `${name} wants a newer Node and the docs do not say why`).toMatch(
        new RegExp(`EBADENGINE[^\n]*${name}@`),
      );
  });

  it("enrolls with a gateway and validates a backend, as the quick start does", async (context) => {
    if (installFailure) context.skip();
    const home = join(work, "home");
    const configPath = join(home, "config.json");
    const identityPath = join(home, "identity.key");
    mkdirSync(home);
    const env = { POD_AGENT_IDENTITY: identityPath };
    const enrolled = await podAgent(
      [
        "enroll",
        "--config",
        configPath,
        "--gateway",
        gateway.baseUrl,
        "--name",
        "packaged host",
        "--wallet",
        (await generateKeyPairSigner()).address,
      ],
      env,
    );
    expect(enrolled.output).toMatch(/host_token: pod_host_\S+/);
    expect(enrolled.code).toBe(0);
    writeFileSync(
      configPath,
      JSON.stringify({
        gateway: gateway.baseUrl,
        identity_path: identityPath,
        backends: [{ kind: "openai", url: backend.baseUrl, models: ["gpt-4o-mini"] }],
        pricing: { models: { "gpt-4o-mini": { input_per_1m: 100_000, output_per_1m: 400_000 } } },
        metrics_addr: "",
      }),
    );
    const validated = await podAgent(["validate", "--config", configPath]);
    expect(validated.output).toContain(`ok: gpt-4o-mini on openai ${backend.baseUrl}`);
    expect(validated.output.trim().endsWith("valid")).toBe(true);
    expect(validated.code).toBe(0);
  });
});
