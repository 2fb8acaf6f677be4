import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";

/** The payout worker running in a child process, to be killed as a crash would kill it. */
export interface PayoutWorkerProcess {
  /** kill -9: no shutdown hook runs, whatever the pass was doing stops where it was. */
  kill(): Promise<void>;
}

const entry = resolve(import.meta.dirname, "payout-worker-entry.ts");

export async function startPayoutWorkerProcess(env: Record<string, string>): Promise<PayoutWorkerProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: resolve(import.meta.dirname, "../.."),
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "test", LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const stdout = child.stdout;
  await new Promise<void>((ready, reject) => {
    const timer = setTimeout(() => reject(new Error("payout worker did not start in 60 s")), 60_000);
    child.once("exit", (code) => reject(new Error(`payout worker exited with ${code}`)));
    createInterface({ input: stdout }).on("line", (line) => {
      if (line.includes('"ready":true')) {
        clearTimeout(timer);
        ready();
      }
    });
  });
  return {
    kill: () =>
      new Promise<void>((stopped) => {
        if (child.exitCode !== null || child.signalCode !== null) return stopped();
        child.once("exit", () => stopped());
        child.kill("SIGKILL");
      }),
  };
}
