import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/**
 * The compatibility promise, kept with the real tools: Claude Code and the Codex CLI (from
 * npm, run headless) pointed at the gateway by base URL only, against the fake upstreams.
 */
// Installed on demand by `npm run test:clis` (.ci/run does), not by every `npm install`.
const bin = (name: string) => join(import.meta.dirname, "../../.cache/test-clis/node_modules/.bin", name);
const clisInstalled = existsSync(bin("claude")) && existsSync(bin("codex"));
if (!clisInstalled)
  console.warn("real-client tests skipped: run `npm run test:clis` to install Claude Code and Codex");

let gateway: TestGateway;
let token: string;

beforeAll(async () => {
  if (!clisInstalled) return;
  gateway = await startTestGateway();
  token = await gateway.createFundedToken(10_000_000n);
});
afterAll(async () => {
  if (clisInstalled) await gateway.close();
});

/**
 * Runs a CLI with only the environment it is given (no keys or settings leak in from the
 * machine) and stdin closed, since `codex exec` otherwise waits to read more prompt from it.
 */
function run(command: string, args: string[], env: Record<string, string>, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { NODE_ENV: "test", PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 90_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} exited ${code}\n${stdout}\n${stderr}`));
    });
  });
}

describe.skipIf(!clisInstalled)("real clients against the gateway", () => {
  it("Claude Code (claude -p) answers through the Anthropic surface and is billed", async () => {
    const home = mkdtempSync(join(tmpdir(), "pod-claude-"));
    const before = (await gateway.balanceOf(token)).balance;
    const output = await run(
      bin("claude"),
      ["-p", "Say hello [fake:tokens=6]"],
      {
        HOME: home,
        ANTHROPIC_BASE_URL: `${gateway.baseUrl}/proxy/${token}`,
        ANTHROPIC_API_KEY: "pod",
        ANTHROPIC_MODEL: "claude-haiku-4-5",
        ANTHROPIC_SMALL_FAST_MODEL: "claude-haiku-4-5",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        DISABLE_AUTOUPDATER: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      },
      home,
    );
    expect(output).toContain("Hello w1 w2 w3 w4 w5");
    expect(gateway.anthropic.requests.some((request) => request.path === "/v1/messages")).toBe(true);
    expect((await gateway.balanceOf(token)).balance).toBeLessThan(before);
  }, 120_000);

  it("Codex (codex exec) answers through the Responses API and is billed", async () => {
    const home = mkdtempSync(join(tmpdir(), "pod-codex-"));
    writeFileSync(
      join(home, "config.toml"),
      [
        'model = "gpt-4o-mini"',
        'model_provider = "pod"',
        "",
        "[model_providers.pod]",
        'name = "Pod Gateway"',
        `base_url = "${gateway.baseUrl}/proxy/${token}/v1"`,
        'wire_api = "responses"',
        "",
      ].join("\n"),
    );
    const before = (await gateway.balanceOf(token)).balance;
    const output = await run(
      bin("codex"),
      ["exec", "--skip-git-repo-check", "Say hello [fake:tokens=5]"],
      { HOME: home, CODEX_HOME: home },
      home,
    );
    expect(output).toContain("Hello w1 w2 w3 w4");
    expect(gateway.openai.requests.some((request) => request.path === "/v1/chat/completions")).toBe(true);
    expect((await gateway.balanceOf(token)).balance).toBeLessThan(before);
  }, 120_000);
});
