import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const agentBin = join(import.meta.dirname, "..", "..", "agent", "bin", "pod-agent.js");
const run = promisify(execFile);

/** Runs one `pod-agent` command to completion, as an operator would, and returns its output. */
export async function podAgent(args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run(process.execPath, [agentBin, ...args], {
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
  return stdout;
}

/** Runs one `pod-agent` command that may fail, as an operator would: its exit code and output. */
export async function podAgentExit(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  try {
    return { code: 0, output: await podAgent(args, env) };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

export function editConfig(path: string, change: (config: Record<string, unknown>) => void): void {
  const config = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  change(config);
  writeFileSync(path, JSON.stringify(config, null, 2));
}

export interface RunningAgent {
  process: ChildProcess;
  output(): string;
  /** Resolves once the agent's output contains `text`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `pod-agent run` as a child process (with `env` added to the test's own). */
export function startAgent(configPath: string, env: Record<string, string> = {}): RunningAgent {
  return watchedProcess([agentBin, "run", "--config", configPath], env);
}

/** The hostile agent of tests/helpers/hostile-agent-process.ts as a child process, doing `attack` to every job. */
export function startHostileAgent(env: {
  gatewayUrl: string;
  enrollmentCode: string;
  attack: string;
  model?: string;
  /** The `model-*` attacks: the share of jobs answered from the smaller model. */
  cheatRate?: number;
  /** The `model-*` attacks: honest for this many jobs first. */
  cheatAfter?: number;
}): RunningAgent {
  return watchedProcess(["--import", "tsx", join(import.meta.dirname, "hostile-agent-process.ts")], {
    GATEWAY_URL: env.gatewayUrl,
    ENROLLMENT_CODE: env.enrollmentCode,
    ATTACK: env.attack,
    ...(env.model ? { MODEL: env.model } : {}),
    ...(env.cheatRate === undefined ? {} : { CHEAT_RATE: String(env.cheatRate) }),
    ...(env.cheatAfter === undefined ? {} : { CHEAT_AFTER: String(env.cheatAfter) }),
  });
}

function watchedProcess(args: string[], env: Record<string, string> = {}): RunningAgent {
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let output = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    process: child,
    output: () => output,
    waitFor(text, timeoutMs = 20_000) {
      const matches = () => (typeof text === "string" ? output.includes(text) : text.test(output));
      if (matches()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`agent never printed ${String(text)}; output:\n${output}`));
        }, timeoutMs);
        const check = () => {
          if (!matches()) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
      });
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * `pod-agent enroll` as an operator runs it, into a fresh folder whose config keeps its
 * identity there: the config path, the host's provider id and what the command printed.
 */
export async function enrollAgent(
  gatewayUrl: string,
  name: string,
): Promise<{ dir: string; configPath: string; providerId: string; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), "pod-agent-"));
  const configPath = join(dir, "config.json");
  const identity = join(dir, "identity.key");
  const output = await podAgent(
    ["enroll", "--config", configPath, "--gateway", gatewayUrl, "--name", name, "--wallet", testWallet],
    { POD_AGENT_IDENTITY: identity },
  );
  editConfig(configPath, (config) => {
    config.identity_path = identity;
  });
  return { dir, configPath, providerId: /provider_id: (\S+)/.exec(output)?.[1] ?? "", output };
}

/** A wallet address for enrolments whose payouts no test reads. */
const testWallet = "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS";
