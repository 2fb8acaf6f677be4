import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** `npm start` (scripts/start.mjs, the precompiled server) with a database it cannot use: one line naming the cause, password redacted, exit 1. */
const root = join(import.meta.dirname, "../..");

function startGateway(
  databaseUrl: string,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--max-semi-space-size=32", "scripts/start.mjs"], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        DATABASE_URL: databaseUrl,
        PORT: "0",
        NODE_ENV: "test",
        ...extraEnv,
      },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 50_000,
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
    child.on("close", (code) => resolve({ code, stderr, stdout }));
  });
}

describe("start with an unusable database", () => {
  it.each([
    ["an unreachable server", "postgres://pod:s3cret@127.0.0.1:1/pod", /refused the connection/],
    ["a malformed URL", "postgres://pod:s3cret@127.0.0.1:notaport/pod", /DATABASE_URL: must be a postgres/],
  ])(
    "%s: one clear line, no password, no stack",
    async (_name, url, cause) => {
      const { code, stderr, stdout } = await startGateway(url);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toMatch(/^pod gateway: cannot start: /);
      expect(stderr).toMatch(cause);
      expect(stderr).not.toContain("s3cret");
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(stderr.trim().split("\n").length).toBeLessThanOrEqual(2);
    },
    60_000,
  );
});

describe("start with a configuration that could mint money", () => {
  it("x402 pay-to and the deposit wallet on one address: one line naming both settings, exit 1", async () => {
    const wallet = "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS";
    const { code, stderr, stdout } = await startGateway("postgres://pod@127.0.0.1:1/pod", {
      X402_PAY_TO: wallet,
      SOLANA_DEPOSIT_ADDRESS: wallet,
    });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr.trim()).toBe(
      `pod gateway: cannot start: invalid environment: X402_PAY_TO and SOLANA_DEPOSIT_ADDRESS are the same Solana address (${wallet}): every address that receives or pays money must be distinct, or one transfer could be counted twice`,
    );
  }, 60_000);
});
