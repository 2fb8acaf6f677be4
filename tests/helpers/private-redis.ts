import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { freePort } from "./free-port";

/**
 * A Redis server of the test's own on a free port, for tests that stop Redis mid-run (the
 * machine's shared Redis must never be stopped). Needs `redis-server` on PATH.
 */
export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence). */
  restart(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open and nothing is answered, as with a hung Redis. */
  pause(): void;
  resume(): void;
}

/** Why tests needing a private Redis skip, or undefined when `redis-server` is installed. */
export function privateRedisSkipReason(): string | undefined {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
    return undefined;
  } catch {
    return "redis-server is not installed (apt-get install redis-server): tests that stop Redis mid-run skipped";
  }
}

/** `args`: more redis-server options (e.g. `["--requirepass", "secret"]`). */
export async function startPrivateRedis(args: string[] = []): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const started = spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...args],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      child = started;
      let output = "";
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
      started.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output}`));
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return resolve();
      running.once("exit", () => resolve());
      running.kill("SIGKILL");
    });
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    restart: launch,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
  };
}
