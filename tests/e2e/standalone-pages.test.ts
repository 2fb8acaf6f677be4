import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/free-port";
import { ensureBuild, repoRoot } from "./next-server";

/**
 * A server as production runs it: the pages built with the full install, then the project
 * installed with `npm ci --omit=dev` (no Next, no React) next to that build. The pages must
 * come from `.next/standalone`, and the API must not notice.
 */

const hasGit = spawnSync("git", ["--version"]).status === 0;
if (!hasGit) console.warn("standalone pages test skipped: git is missing (it lists the files to copy)");

/** The working tree's files (tracked, and new ones not ignored), without node_modules or builds. */
function copyWorkingTree(into: string): void {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split("\0")) {
    if (file === "" || !existsSync(path.join(repoRoot, file))) continue;
    mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    cpSync(path.join(repoRoot, file), path.join(into, file));
  }
}

describe.skipIf(!hasGit)("pages from the standalone output in a production install", () => {
  let root = "";
  let child: ChildProcess | undefined;
  let baseUrl = "";
  let output = "";

  beforeAll(async () => {
    ensureBuild();
    root = mkdtempSync(path.join(tmpdir(), "pod-prod-install-"));
    copyWorkingTree(root);
    cpSync(path.join(repoRoot, ".next"), path.join(root, ".next"), {
      recursive: true,
      verbatimSymlinks: true,
      filter: (source) => !source.startsWith(path.join(repoRoot, ".next", "cache")),
    });
    const installed = spawnSync("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund"], {
      cwd: root,
      encoding: "utf8",
    });
    if (installed.status !== 0)
      throw new Error(`npm ci --omit=dev failed:\n${installed.stderr.slice(-3000)}`);
    const port = await freePort();
    const started = spawn(process.execPath, ["scripts/start.mjs"], {
      cwd: root,
      // Only what a fresh machine has: no database or Redis of the test run leaks in.
      env: {
        NODE_ENV: "production",
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(port),
        HOST: "127.0.0.1",
        POD_DATA_DIR: path.join(root, ".data"),
        NEXT_TELEMETRY_DISABLED: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = started;
    started.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    started.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    baseUrl = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (started.exitCode !== null) throw new Error(`the gateway exited early:\n${output}`);
      const health = await fetch(`${baseUrl}/health`).catch(() => undefined);
      if (health?.ok) break;
      if (Date.now() > deadline) throw new Error(`the gateway never answered /health:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 600_000);

  afterAll(() => {
    child?.kill("SIGKILL");
    if (root !== "") rmSync(root, { recursive: true, force: true });
  });

  it("has no Next in the install, and serves the docs, their scripts, a route handler and the API", async () => {
    expect(() => createRequire(path.join(root, "package.json")).resolve("next")).toThrow();
    const docs = await fetch(`${baseUrl}/docs/resources/replicas`);
    const html = await docs.text();
    expect(docs.status, output).toBe(200);
    expect(html).toContain("What a second replica costs a request");
    const script = /\/_next\/static\/[^"]+\.js/.exec(html)?.[0];
    expect(script).toBeDefined();
    const asset = await fetch(`${baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toContain("javascript");
    expect((await fetch(`${baseUrl}/dashboard`)).status).toBe(200);
    const registered = await fetch(`${baseUrl}/v1/register`, { method: "POST" });
    expect(registered.status).toBe(200);
    const { api_token: token } = (await registered.json()) as { api_token: string };
    expect(token).toEqual(expect.any(String));
    // A Next route handler that reads the database through the server's context.
    const session = await fetch(`${baseUrl}/dashboard/session`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: baseUrl },
      body: JSON.stringify({ api_token: token }),
    });
    expect(session.status, output).toBe(200);
    expect(await session.json()).toEqual({ signed_in: true });
    expect(output).toContain("standalone output");
  });
});
