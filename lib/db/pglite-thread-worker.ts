/**
 * Entry that owns the embedded PGlite, as a worker thread (the serving engine: its WebAssembly
 * then runs on a core of its own instead of the thread that answers requests) or as a child
 * process (the set-up engine of a new data directory; see pglite-engine-channel.ts). Statements
 * run in the order they arrive; PGlite itself makes statements from outside an open transaction
 * wait for it to end.
 */
import { setFlagsFromString } from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, type QueryOptions, type Transaction } from "@electric-sql/pglite";
import { collectStartupGarbage } from "../collect-startup-garbage";
import { ENGINE_LOCATION_VARIABLE } from "./pglite-engine-channel";
import { pgliteOptions } from "./pglite-options";
import {
  errorToFields,
  type ThreadQueryOptions,
  type ThreadReply,
  type ThreadRequest,
} from "./pglite-thread-protocol";

interface OpenTransaction {
  tx: Transaction;
  finish(commit: boolean): void;
  done: Promise<unknown>;
}

interface Port {
  location: string;
  template?: string | undefined;
  send(message: ThreadReply): void;
  onRequest(handler: (request: ThreadRequest) => void): void;
}

function openPort(): Port {
  const thread = parentPort;
  if (thread)
    return {
      ...(workerData as { location: string; template?: string }),
      send: (message) => thread.postMessage(message),
      onRequest: (handler) => thread.on("message", handler),
    };
  const location = process.env[ENGINE_LOCATION_VARIABLE];
  if (!process.send || !location)
    throw new Error(
      "pglite-thread-worker runs only as a worker thread or a child process with an IPC channel",
    );
  // The parent is gone (crashed, killed): an engine nobody can reach has nothing left to do.
  process.on("disconnect", () => process.exit(0));
  return {
    location,
    send: (message) => {
      process.send?.(message);
    },
    onRequest: (handler) => process.on("message", (request) => handler(request as ThreadRequest)),
  };
}

const port = openPort();
const transactions = new Map<number, OpenTransaction>();
let nextTransaction = 1;

function reply(message: ThreadReply): void {
  port.send(message);
}

const keepText = (value: string): string => value;

function queryOptions(options: ThreadQueryOptions | undefined): QueryOptions | undefined {
  if (!options) return undefined;
  const parsers: NonNullable<QueryOptions["parsers"]> = {};
  for (const type of options.rawTypes ?? []) parsers[type] = keepText;
  return { rowMode: options.rowMode ?? "object", parsers };
}

class RollbackRequested extends Error {}

function begin(client: PGlite): Promise<number> {
  const id = nextTransaction++;
  return new Promise((opened, failed) => {
    const done = client
      .transaction(
        (tx) =>
          new Promise<void>((commit, rollback) => {
            transactions.set(id, {
              tx,
              done,
              finish: (ok) => (ok ? commit() : rollback(new RollbackRequested())),
            });
            opened(id);
          }),
      )
      .finally(() => transactions.delete(id));
    // A transaction that never opened (BEGIN failed) is reported to the caller here.
    done.catch(failed);
  });
}

function executorOf(client: PGlite, tx: number | undefined): PGlite | Transaction {
  if (tx === undefined) return client;
  const open = transactions.get(tx);
  if (!open) throw new Error(`transaction ${tx} is not open`);
  return open.tx;
}

async function handle(client: PGlite, request: ThreadRequest): Promise<unknown> {
  switch (request.op) {
    case "query":
      return executorOf(client, request.tx).query(
        request.text,
        request.params,
        queryOptions(request.options),
      );
    case "exec":
      return executorOf(client, request.tx).exec(request.text);
    case "begin":
      return begin(client);
    case "end": {
      const open = transactions.get(request.tx);
      if (!open) throw new Error(`transaction ${request.tx} is not open`);
      open.finish(request.commit);
      try {
        await open.done;
      } catch (error) {
        if (!(error instanceof RollbackRequested)) throw error;
      }
      return null;
    }
    case "close":
      await client.close();
      return null;
  }
}

/**
 * The engine's WebAssembly runs on V8's baseline compiler only. With the optimizing tier on, V8
 * recompiles Postgres' hot functions in the background as load comes: measured here (a file-backed
 * PGlite, 1,500 batches of eight ledger-style inserts, two runs each way on the shared 2-core
 * machine), 201 to 205 MiB resident and 17.8 to 18.1 s with it, 142 to 147 MiB and 14.4 to 14.8 s
 * without: the optimized code and its compiles cost more than they save in a gateway's statements.
 * The flag is the process's: only WebAssembly compiled after this (the engine, undici's HTTP
 * parser, small) is affected, never JavaScript.
 */
setFlagsFromString("--liftoff-only");

try {
  const client = new PGlite(port.location, pgliteOptions(port.template));
  await client.waitReady;
  // initdb and the migrations leave garbage this thread is too idle to ever collect: it is
  // collected once, the first time the worker has had no statement for 5 s.
  let startupCollection: NodeJS.Timeout | undefined = setTimeout(() => {
    startupCollection = undefined;
    collectStartupGarbage();
  }, 5_000).unref();
  port.onRequest((request) => {
    startupCollection?.refresh();
    handle(client, request).then(
      (value) => reply({ id: request.id, ok: true, value }),
      (error: unknown) => reply({ id: request.id, ok: false, error: errorToFields(error) }),
    );
  });
  reply({ ready: true });
} catch (error) {
  reply({ ready: false, error: errorToFields(error) });
}
