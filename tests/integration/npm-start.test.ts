import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

// `npm start` runs scripts/start.mjs: server.ts compiled by esbuild into .pod/server, then run in
// the same process (no tsx loader thread). These start it as package.json does and use the API.

const root = join(import.meta.dirname, "../..");
const inputsFile = join(root, ".pod", "server", "inputs.json");
const adminToken = "start-admin";

/** The node flags and script of package.json's start script, so the test runs what users run. */
function startCommand(): string[] {
  const scripts = (
    JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { start: string } }
  ).scripts;
  const [program, ...args] = scripts.start.split(" ");
  expect(program).toBe("node");
  return args;
}

interface Started {
  child: ChildProcess;
  origin: string;
  stderr: () => string;
}

const running: ChildProcess[] = [];
const scratch: string[] = [];
const databases: TestDatabase[] = [];

afterAll(async () => {
  for (const child of running) child.kill("SIGKILL");
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  for (const database of databases) await database.drop();
});

async function start(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, startCommand(), {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: "0",
      HOST: "127.0.0.1",
      POD_PAGES: "off",
      ADMIN_TOKEN: adminToken,
      NODE_ENV: "production",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within 180 s: ${stderr}`)), 180_000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /"message":"pod gateway listening","url":"([^"]+)"/.exec(stdout)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening: ${stderr}`));
    });
  });
  return { child, origin, stderr: () => stderr };
}

/** Health, a token, an admin credit and the balance read back: the database answers through the compiled code. */
async function useTheApi(origin: string, kind: "pglite" | "postgres"): Promise<void> {
  const health = (await (await fetch(`${origin}/health`)).json()) as {
    status: string;
    components: { database: { status: string; kind: string } };
  };
  expect(health.status).toBe("ok");
  expect(health.components.database).toEqual({ status: "ok", kind });
  const { api_token: token } = (await (await fetch(`${origin}/v1/register`, { method: "POST" })).json()) as {
    api_token: string;
  };
  const credited = await fetch(`${origin}/v1/admin/credits`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ api_token: token, amount_microunits: "2500000", reason: "start test" }),
  });
  expect(credited.status).toBe(200);
  const balance = (await (await fetch(`${origin}/proxy/${token}/balance`)).json()) as {
    usdc_balance: number;
  };
  expect(balance.usdc_balance).toBe(2_500_000);
  const refused = await fetch(`${origin}/proxy/not-a-token/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
  });
  expect(refused.status).toBe(401);
  expect(((await refused.json()) as { error: { type: string } }).error.type).toBe("unauthorized");
}

/** The processes a gateway started and still has: the compiler's service and PGlite's set-up engine are done by then. */
function childrenOf(child: ChildProcess): string[] {
  try {
    return execFileSync("ps", ["-o", "args=", "--ppid", String(child.pid)], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.trim() !== "");
  } catch {
    return []; // ps exits 1 when it lists nothing
  }
}

describe("npm start: the precompiled server", () => {
  it("serves the API on the embedded PGlite (its worker thread compiled too)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "pod-start-"));
    scratch.push(dataDir);
    const gateway = await start({ POD_DATA_DIR: dataDir });
    await useTheApi(gateway.origin, "pglite");
    expect(gateway.stderr()).toBe("");
  }, 240_000);

  it("serves the API on Postgres", async (context) => {
    if (!process.env.TEST_DATABASE_URL) {
      console.warn("npm start on Postgres skipped: set TEST_DATABASE_URL to run it (.ci/run does)");
      context.skip();
    }
    const database = await createTestDatabase();
    databases.push(database);
    const gateway = await start({ DATABASE_URL: database.url ?? "" });
    await useTheApi(gateway.origin, "postgres");
  }, 240_000);

  it("compiles again only when a source is newer than the copy, and two starts at once both come up", async () => {
    const before = JSON.parse(readFileSync(inputsFile, "utf8")) as { compiledAt: number; inputs: string[] };
    expect(before.inputs).toContain("server.ts");
    expect(before.inputs).toContain("lib/db/pglite-thread-worker.ts");
    const dirs = [mkdtempSync(join(tmpdir(), "pod-start-")), mkdtempSync(join(tmpdir(), "pod-start-"))];
    scratch.push(...dirs);

    const unchanged = await start({ POD_DATA_DIR: dirs[0] ?? "" });
    expect((JSON.parse(readFileSync(inputsFile, "utf8")) as { compiledAt: number }).compiledAt).toBe(
      before.compiledAt,
    );
    unchanged.child.kill("SIGKILL");

    // Stale as if a source had been edited since: both starts compile, each writes whole files.
    writeFileSync(inputsFile, JSON.stringify({ ...before, compiledAt: 0 }));
    const [first, second] = await Promise.all(dirs.map((dir) => start({ POD_DATA_DIR: dir })));
    const after = JSON.parse(readFileSync(inputsFile, "utf8")) as { compiledAt: number };
    expect(after.compiledAt).toBeGreaterThan(0);
    await useTheApi(first?.origin ?? "", "pglite");
    await useTheApi(second?.origin ?? "", "pglite");
    // Each compiled and created a new data directory: neither keeps a process for that.
    expect(first && childrenOf(first.child)).toEqual([]);
    expect(second && childrenOf(second.child)).toEqual([]);
  }, 420_000);
});
