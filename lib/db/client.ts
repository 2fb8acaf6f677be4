import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { SQL } from "drizzle-orm";
import { type PgDatabase, PgDialect, type PgQueryResultHKT, type PgTransaction } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import type { EngineHost } from "./pglite-engine-channel";
import { pgliteOptions } from "./pglite-options";
import { PGliteThreadClient } from "./pglite-thread-client";
import * as schema from "./schema";

type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
type Transaction = PgTransaction<PgQueryResultHKT, Schema>;
/** Queries take either the database or an open transaction, so they compose into larger transactions. */
export type Executor = Database | Transaction;

/** One connection kept for the process's lifetime: session-level advisory locks live on it. */
interface SessionConnection {
  query(text: string, params: unknown[]): Promise<Array<Record<string, unknown>>>;
  release(): void;
}

export interface DatabaseHandle {
  db: Database;
  kind: "pglite" | "postgres";
  /** An in-memory PGlite: it dies with the process, so nothing written for a later process to read can outlive it. */
  volatile: boolean;
  /** Postgres only: a dedicated connection (PGlite is one process, so it needs none). */
  session?: () => Promise<SessionConnection>;
  /** Applies `drizzle/`; on Postgres under the start-up lock, so replicas started together migrate one at a time. */
  migrate(): Promise<void>;
  /**
   * Runs `work` while holding the lock `name` across every process on this database (a Postgres
   * session advisory lock on a connection of its own, gone with the process if it dies). PGlite
   * lives in one process, so there it just runs.
   */
  exclusively<T>(name: string, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Advisory lock names are namespaced so they never meet another use of hashtextextended (instance locks). */
function lockName(name: string): string {
  return `pod-gateway:lock:${name}`;
}

/** Next bundles this module without `import.meta.dirname`; the app always runs from the repo root then. */
function migrationsFolder(): string {
  return import.meta.dirname
    ? resolve(import.meta.dirname, "../../drizzle")
    : resolve(process.cwd(), "drizzle");
}

export interface OpenDatabaseOptions {
  /** A Postgres URL; without it the embedded PGlite is used. */
  url?: string | undefined;
  /** PGlite data directory; `memory://` keeps it in memory (tests). */
  dataDir?: string;
  /**
   * An in-memory PGlite starts from this dumped data directory (`writePgliteTemplate`) instead of
   * running initdb; the migrations then apply only what the dump lacks.
   */
  memoryTemplate?: string | undefined;
  maxConnections?: number;
  /**
   * Where PGlite's engine runs: "worker" (a worker thread, so statements do not take the
   * request thread's time) or "main". Next's own bundle always runs it on the main thread.
   */
  pgliteThread?: "worker" | "main";
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (options.url) {
    const client = postgres(options.url, {
      max: options.maxConnections ?? 10,
      onnotice: () => {},
      // Money columns are bigint; never let them pass through a JS number.
      types: { bigint: postgres.BigInt },
    });
    const db = drizzlePostgres(client, { schema }) as unknown as Database;
    // postgres.js names a prepared statement per query text and connection, then only binds it.
    preparedRunners.set(db, (_name, text, params) =>
      client.unsafe(text, params as never[], { prepare: true }),
    );
    const session = async (): Promise<SessionConnection> => {
      const reserved = await client.reserve();
      return {
        query: async (text, params) =>
          (await reserved.unsafe(text, params as postgres.ParameterOrJSON<never>[])) as unknown as Array<
            Record<string, unknown>
          >,
        release: () => reserved.release(),
      };
    };
    const exclusively = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const connection = await session();
      try {
        await connection.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [lockName(name)]);
        try {
          return await work();
        } finally {
          await connection.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [lockName(name)]);
        }
      } finally {
        connection.release();
      }
    };
    return {
      db,
      kind: "postgres",
      volatile: false,
      session,
      // Replicas started at the same moment on a fresh database would otherwise each create the
      // same schema and types, and all but one exit on a duplicate key (pg_type_typname_nsp_index).
      migrate: () =>
        exclusively("start-up", () =>
          migratePostgres(drizzlePostgres(client), { migrationsFolder: migrationsFolder() }),
        ),
      exclusively,
      close: () => client.end({ timeout: 5 }),
    };
  }
  const dataDir = options.dataDir ?? "./.data";
  let location = dataDir;
  if (!dataDir.startsWith("memory://")) {
    location = resolve(dataDir, "pglite");
    // PGlite does not create missing parent folders itself.
    mkdirSync(location, { recursive: true });
  }
  const thread = options.pgliteThread ?? "worker";
  if (location !== dataDir && !existsSync(join(location, "PG_VERSION"))) await createPGlite(location, thread);
  const template = location === dataDir ? options.memoryTemplate : undefined;
  const client = await startPGlite(location, thread, "thread", template);
  const db = drizzlePglite(client, { schema }) as unknown as Database;
  preparedRunners.set(db, pglitePreparedRunner(client));
  return {
    db,
    kind: "pglite",
    volatile: location === dataDir,
    migrate: async () => {
      await migratePglite(drizzlePglite(client), { migrationsFolder: migrationsFolder() });
      // Every database made from one template would otherwise share the template's name.
      if (template) await client.exec("UPDATE database_identity SET id = gen_random_uuid()::text");
    },
    exclusively: (_name, work) => work(),
    close: () => client.close(),
  };
}

/**
 * Set by scripts/start.mjs when it precompiles the server: the path of the worker entry it
 * compiled beside it. Absent under tsx and in Next's bundle (`typeof` of an undeclared name is safe).
 */
declare const POD_COMPILED_PGLITE_WORKER: string | undefined;

function pgliteWorkerEntry(): string | undefined {
  if (typeof POD_COMPILED_PGLITE_WORKER === "string") return POD_COMPILED_PGLITE_WORKER;
  return import.meta.dirname && resolve(import.meta.dirname, "pglite-thread-worker.ts");
}

/**
 * A new data directory is created (initdb) and migrated by an engine that is then closed:
 * WebAssembly memory only grows, and those steps leave the engine that serves about 400 MiB
 * larger than one opened on the finished directory. With the engine off the request thread,
 * the set-up one runs in a child process, so nothing of it stays in this one.
 */
async function createPGlite(location: string, thread: "worker" | "main"): Promise<void> {
  const setup = await startPGlite(location, thread, "process");
  try {
    await migratePglite(drizzlePglite(setup), { migrationsFolder: migrationsFolder() });
  } finally {
    await setup.close();
  }
}

async function startPGlite(
  location: string,
  thread: "worker" | "main",
  host: EngineHost = "thread",
  template?: string,
): Promise<PGlite> {
  const workerEntry = pgliteWorkerEntry();
  if (thread === "main" || !workerEntry) {
    const client = new PGlite(location, pgliteOptions(template));
    await client.waitReady;
    return client;
  }
  const client = new PGliteThreadClient(location, workerEntry, host, template);
  try {
    await client.waitReady;
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return client.asPGlite();
}

/** `db.execute` returns an array on postgres-js and `{rows}` on PGlite; this reads both. */
export async function queryRows<T>(executor: Executor, query: SQL): Promise<T[]> {
  const result: unknown = await executor.execute(query);
  if (Array.isArray(result)) return result as T[];
  return (result as { rows: T[] }).rows;
}

type PreparedRunner = (name: string, text: string, params: unknown[]) => Promise<unknown>;

/** The raw client behind each open database, for the few hot-path statements worth preparing. */
const preparedRunners = new WeakMap<object, PreparedRunner>();
const dialect = new PgDialect();

/**
 * PGlite has one session, so a statement is prepared once with PREPARE and run with EXECUTE:
 * the engine parses and plans it once instead of on every request. EXECUTE is a utility statement
 * and takes no bind parameters, so its arguments are sent as quoted literals (checked below that
 * standard_conforming_strings is on, so doubling quotes is the whole escaping rule).
 */
function pglitePreparedRunner(client: PGlite): PreparedRunner {
  const prepared = new Map<string, Promise<string>>();
  let conforming: Promise<void> | undefined;
  return async (name, text, params) => {
    conforming ??= client
      .query<{ standard_conforming_strings: string }>("SHOW standard_conforming_strings")
      .then((result) => {
        if (result.rows[0]?.standard_conforming_strings !== "on")
          throw new Error("PGlite: standard_conforming_strings is off; prepared statements need it on");
      });
    await conforming;
    let statement = prepared.get(text);
    if (!statement) {
      const statementName = `${name}_${prepared.size}`;
      statement = client.exec(`PREPARE ${statementName} AS ${text}`).then(() => statementName);
      prepared.set(text, statement);
      statement.catch(() => prepared.delete(text));
    }
    const statementName = await statement;
    const result = await client.query(
      params.length
        ? `EXECUTE ${statementName}(${params.map(sqlLiteral).join(", ")})`
        : `EXECUTE ${statementName}`,
    );
    return result.rows;
  };
}

function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  const text = value instanceof Date ? value.toISOString() : String(value);
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * Runs a hot-path statement as a named prepared statement, parsed and planned once per connection
 * rather than on every call. Inside a transaction it runs as a plain statement.
 */
export async function queryPrepared<T>(executor: Executor, name: string, query: SQL): Promise<T[]> {
  const run = preparedRunners.get(executor);
  if (!run) return queryRows<T>(executor, query);
  const { sql: text, params } = dialect.sqlToQuery(query);
  const result: unknown = await run(name, text, params);
  if (Array.isArray(result)) return result as T[];
  return (result as { rows: T[] }).rows;
}

/**
 * Writes a migrated, empty in-memory database's data directory to `file` (atomically), for
 * `memoryTemplate`: what the tests' in-memory gateways start from.
 */
export async function writePgliteTemplate(file: string): Promise<void> {
  const engine = new PGlite("memory://", pgliteOptions());
  try {
    await migratePglite(drizzlePglite(engine), { migrationsFolder: migrationsFolder() });
    const dump = await engine.dumpDataDir("none");
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
  } finally {
    await engine.close();
  }
}
