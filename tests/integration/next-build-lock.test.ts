import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { repoRoot } from "../e2e/next-server";
import { lockHeldByAnotherProcess } from "../helpers/next-build-lock";

/**
 * The page tests wait for a build another process runs (the README's `npm start` builds the pages
 * in the background; a newcomer runs `npm test` beside it) by asking whether a process holds
 * Next's build lock. A process holding it with Next's own lockfile code reads as a build in
 * progress; once it is killed with SIGKILL, the file it leaves behind does not.
 */
const holder = `
const { loadBindings } = require(${JSON.stringify(path.join(repoRoot, "node_modules/next/dist/build/swc/index.js"))});
const { Lockfile } = require(${JSON.stringify(path.join(repoRoot, "node_modules/next/dist/build/lockfile.js"))});
loadBindings().then(() => {
  const lock = Lockfile.tryAcquire(process.argv[1], false);
  process.stdout.write(lock ? "held\\n" : "refused\\n");
  setInterval(() => {}, 1000);
});
`;
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
});

function holdLock(lockPath: string): Promise<string> {
  child = spawn(process.execPath, ["-e", holder, lockPath], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child?.stdout?.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
    child?.once("exit", (code) => reject(new Error(`lock holder exited (${String(code)})`)));
  });
}

describe("the page build lock", () => {
  it("reads a held lock as a build in progress, and a killed builder's leftover file as none", async () => {
    const lockPath = path.join(mkdtempSync(path.join(tmpdir(), "next-lock-")), "lock");
    expect(lockHeldByAnotherProcess(lockPath)).toBe(false);
    expect(await holdLock(lockPath)).toBe("held");
    expect(lockHeldByAnotherProcess(lockPath)).toBe(true);
    const exited = new Promise((resolve) => child?.once("exit", resolve));
    child?.kill("SIGKILL");
    await exited;
    expect(existsSync(lockPath)).toBe(true);
    expect(lockHeldByAnotherProcess(lockPath)).toBe(false);
  });
});
