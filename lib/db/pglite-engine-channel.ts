import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { ThreadReply, ThreadRequest } from "./pglite-thread-protocol";

/**
 * Where the PGlite engine runs: a worker thread of this process (the engine that serves), or a
 * child process (the one that creates and migrates a new data directory: when it exits, all it
 * allocated goes back to the system, where a finished worker thread left about 45 MiB resident
 * in this process, measured idle after a fresh start).
 */
export type EngineHost = "thread" | "process";

/** The messages of lib/db/pglite-thread-protocol.ts to and from the engine, whichever its host. */
export interface EngineChannel {
  post(message: ThreadRequest): void;
  onMessage(handler: (message: ThreadReply) => void): void;
  onError(handler: (error: Error) => void): void;
  onExit(handler: (code: number | null) => void): void;
  terminate(): Promise<void>;
}

/** Set in a child process's environment: the data directory its engine opens. */
export const ENGINE_LOCATION_VARIABLE = "POD_PGLITE_LOCATION";

/**
 * The engine's first statement: the precompiled entry (npm start) is imported as it is; the
 * TypeScript one (tsx, tests) through tsx's loader, registered by file URL so it loads
 * TypeScript however we were started.
 */
function bootstrap(entry: string): string {
  if (!entry.endsWith(".ts")) return `import(${JSON.stringify(pathToFileURL(entry).href)});`;
  // Resolved from the entry's own path at run time, so bundlers do not try to follow it.
  const tsxApi = pathToFileURL(createRequire(entry).resolve("tsx/esm/api")).href.replace(/\.cjs$/, ".mjs");
  return `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); return import(${JSON.stringify(pathToFileURL(entry).href)}); });`;
}

function threadChannel(entry: string, location: string, template: string | undefined): EngineChannel {
  const worker = new Worker(bootstrap(entry), { eval: true, workerData: { location, template } });
  return {
    post: (message) => worker.postMessage(message),
    onMessage: (handler) => worker.on("message", handler),
    onError: (handler) => worker.on("error", handler),
    onExit: (handler) => worker.on("exit", handler),
    terminate: async () => {
      await worker.terminate();
    },
  };
}

function processChannel(entry: string, location: string): EngineChannel {
  // Advanced serialization is the structured clone a worker's messages use: bigint, Date and
  // byte arrays cross as they do to a thread. No inherited node flags (a profiler, a bench probe).
  const child: ChildProcess = spawn(process.execPath, ["--input-type=module", "--eval", bootstrap(entry)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    serialization: "advanced",
    env: { ...process.env, [ENGINE_LOCATION_VARIABLE]: location },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    post: (message) => {
      child.send(message);
    },
    onMessage: (handler) => child.on("message", (message) => handler(message as ThreadReply)),
    onError: (handler) => child.on("error", handler),
    onExit: (handler) => child.on("exit", handler),
    terminate: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
  };
}

/** `template`: a dumped data directory an in-memory engine starts from (a thread's engine only). */
export function openEngineChannel(
  entry: string,
  location: string,
  host: EngineHost,
  template?: string,
): EngineChannel {
  return host === "thread" ? threadChannel(entry, location, template) : processChannel(entry, location);
}
