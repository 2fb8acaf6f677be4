import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { buildState } from "../../lib/pages/build-stamp";
import { freePort } from "../helpers/free-port";
import { lockHeldByAnotherProcess } from "../helpers/next-build-lock";

/**
 * Builds the app when the build is missing or stale, and runs
 * `next start` on a free loopback port for the page tests.
 */

export const repoRoot = path.resolve(import.meta.dirname, "../..");

/** True when `.next` holds a production build of the current sources (the stamp `npm run build` writes). */
function buildIsFresh(): boolean {
  return buildState(repoRoot) === "fresh";
}

/** How long a test waits for a page build another process is running (`npm start`'s background build). */
const otherBuildWaitMs = Number(process.env.TEST_PAGE_BUILD_WAIT_MS ?? 45 * 60_000);

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * `npm run build` (contentlayer2, then next build) unless the current build is fresh. Someone
 * else may be building in this tree: the README's `npm start` builds the pages in the background,
 * and a newcomer may run `npm test` beside it. Next refuses a second build, so wait for theirs
 * (up to TEST_PAGE_BUILD_WAIT_MS, 45 minutes by default: a page build took 21 on this machine
 * under load) and look again; before, the tests gave up after 2.5 minutes and failed.
 */
export function ensureBuild(): void {
  const lockPath = path.join(repoRoot, ".next", "lock");
  const deadline = Date.now() + otherBuildWaitMs;
  for (;;) {
    if (buildIsFresh()) return;
    if (Date.now() < deadline && lockHeldByAnotherProcess(lockPath)) {
      pause(5_000);
      continue;
    }
    const result = spawnSync("npm", ["run", "build"], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    const output = `${result.stdout}${result.stderr}`;
    if (result.status === 0) return;
    if (!output.includes("Another next build process is already running") || Date.now() >= deadline) {
      throw new Error(`npm run build failed (exit ${result.status}):\n${output.slice(-4000)}`);
    }
    pause(10_000);
  }
}

export interface RunningNext {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts `next start` and waits until it answers. DOCS_URL is left unset: URLs follow the Host header. */
export async function startNext(): Promise<RunningNext> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" };
  delete env.DOCS_URL;
  delete env.PUBLIC_BASE_URL;
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(repoRoot, "node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"],
    { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited early:\n${output}`);
    try {
      const response = await fetch(`${baseUrl}/llms.txt`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`next start did not answer within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    baseUrl,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
