import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";

/** A gateway running in its own Node process, as a second replica would in production. */
export interface GatewayProcess {
  url: string;
  stop(): Promise<void>;
  /** kill -9: no shutdown hook runs, nothing in memory is written. */
  kill(): Promise<void>;
}

const entry = resolve(import.meta.dirname, "x402-gateway-entry.ts");

export async function startGatewayProcess(
  env: Record<string, string>,
  options: { startTimeoutMs?: number } = {},
): Promise<GatewayProcess> {
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: resolve(import.meta.dirname, "../.."),
    env: {
      ...process.env,
      NODE_ENV: "test",
      LOG_LEVEL: "error",
      PORT: "0",
      HOST: "127.0.0.1",
      BALANCE_LEASE: "off",
      VERIFY_SHARE: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const stdout = child.stdout;
  if (!stdout) throw new Error("gateway process has no stdout");
  const url = await new Promise<string>((resolveUrl, reject) => {
    const lines = createInterface({ input: stdout });
    const timer = setTimeout(
      () => reject(new Error(`gateway process did not start in ${startTimeoutMs / 1000} s`)),
      startTimeoutMs,
    );
    child.once("exit", (code) => reject(new Error(`gateway process exited with ${code}`)));
    lines.on("line", (line) => {
      try {
        const parsed = JSON.parse(line) as { url?: string };
        if (parsed.url) {
          clearTimeout(timer);
          resolveUrl(parsed.url);
        }
      } catch {
        // not the ready line
      }
    });
  });
  const signal = (name: NodeJS.Signals) =>
    new Promise<void>((resolveStop) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
      child.once("exit", () => resolveStop());
      child.kill(name);
    });
  return { url, stop: () => signal("SIGTERM"), kill: () => signal("SIGKILL") };
}
