import type { PGlite, QueryOptions, Results } from "@electric-sql/pglite";
import { type EngineChannel, type EngineHost, openEngineChannel } from "./pglite-engine-channel";
import {
  PGliteThreadError,
  type ThreadQueryOptions,
  type ThreadReply,
  type ThreadRequest,
} from "./pglite-thread-protocol";

type Pending = { resolve(value: unknown): void; reject(error: Error): void };
type RequestBody = ThreadRequest extends infer R ? (R extends ThreadRequest ? Omit<R, "id"> : never) : never;

/** The part of PGlite's query interface that drizzle's PGlite driver and lib/db call. */
interface Queryable {
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(text: string): Promise<Results[]>;
}

interface ThreadTransaction extends Queryable {
  closed: boolean;
  rollback(): Promise<void>;
}

/**
 * drizzle passes identity parsers for the date and interval types (it parses their text itself);
 * a function cannot cross to the worker, so the types travel and the worker keeps their text.
 */
function threadOptions(options: QueryOptions | undefined): ThreadQueryOptions | undefined {
  if (!options) return undefined;
  return {
    ...(options.rowMode ? { rowMode: options.rowMode } : {}),
    rawTypes: Object.keys(options.parsers ?? {}).map(Number),
  };
}

/**
 * The embedded PGlite run in a worker thread, with the methods of PGlite that drizzle's PGlite
 * driver uses (query, exec, transaction, close). Each call is a message to the worker and its
 * answer; a transaction is opened in the worker and its statements are routed into it by id.
 */
export class PGliteThreadClient implements Queryable {
  readonly #engine: EngineChannel;
  readonly #pending = new Map<number, Pending>();
  readonly waitReady: Promise<void>;
  #nextId = 1;
  #failure: Error | undefined;

  /**
   * `entry`: the path of pglite-thread-worker.ts, or of its precompiled copy; `template`: a dumped
   * data directory an in-memory engine starts from.
   */
  constructor(location: string, entry: string, host: EngineHost = "thread", template?: string) {
    this.#engine = openEngineChannel(entry, location, host, template);
    this.waitReady = new Promise((ready, failed) => {
      this.#engine.onMessage((message) => {
        if (!("id" in message)) {
          if (message.ready) ready();
          else failed(new PGliteThreadError(message.error));
          return;
        }
        const pending = this.#pending.get(message.id);
        if (!pending) return;
        this.#pending.delete(message.id);
        if (message.ok) pending.resolve(message.value);
        else pending.reject(new PGliteThreadError(message.error));
      });
      this.#engine.onError((error) => {
        this.#fail(error);
        failed(error);
      });
      this.#engine.onExit((code) => {
        const error = new Error(
          `the PGlite engine's ${host === "thread" ? "worker thread" : "process"} exited (code ${code})`,
        );
        this.#fail(error);
        failed(error);
      });
    });
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  #call(body: RequestBody): Promise<unknown> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#engine.post({ ...body, id } as ThreadRequest);
    });
  }

  /** A statement on its own (`tx` undefined) or inside the worker's open transaction `tx`. */
  async #query<T>(
    tx: number | undefined,
    text: string,
    params: unknown[] | undefined,
    options: QueryOptions | undefined,
  ): Promise<Results<T>> {
    const threaded = threadOptions(options);
    return (await this.#call({
      op: "query",
      text,
      ...(tx === undefined ? {} : { tx }),
      ...(params ? { params } : {}),
      ...(threaded ? { options: threaded } : {}),
    })) as Results<T>;
  }

  async #exec(tx: number | undefined, text: string): Promise<Results[]> {
    return (await this.#call({ op: "exec", text, ...(tx === undefined ? {} : { tx }) })) as Results[];
  }

  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.#query(undefined, text, params, options);
  }

  exec(text: string): Promise<Results[]> {
    return this.#exec(undefined, text);
  }

  async transaction<T>(callback: (tx: ThreadTransaction) => Promise<T>): Promise<T> {
    const txId = (await this.#call({ op: "begin" })) as number;
    const tx: ThreadTransaction = {
      closed: false,
      query: <R>(text: string, params?: unknown[], options?: QueryOptions) =>
        this.#query<R>(txId, text, params, options),
      exec: (text: string) => this.#exec(txId, text),
      rollback: async () => {
        throw new Error("rollback: throw from the transaction callback instead");
      },
    };
    let result: T;
    try {
      result = await callback(tx);
    } catch (error) {
      tx.closed = true;
      await this.#call({ op: "end", tx: txId, commit: false }).catch(() => {});
      throw error;
    }
    tx.closed = true;
    await this.#call({ op: "end", tx: txId, commit: true });
    return result;
  }

  async close(): Promise<void> {
    if (!this.#failure) await this.#call({ op: "close" });
    this.#fail(new Error("the PGlite engine is closed"));
    await this.#engine.terminate();
  }

  /** For drizzle's PGlite driver, which is typed against PGlite and calls only the methods above. */
  asPGlite(): PGlite {
    return this as unknown as PGlite;
  }
}
