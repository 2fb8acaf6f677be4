import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import * as schema from "./schema";

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema>;
/** Queries take either the database or an open transaction, so they compose into larger transactions. */
export type Executor = Database | Transaction;

export interface DatabaseHandle {
  db: Database;
  kind: "pglite" | "postgres";
  migrate(): Promise<void>;
  close(): Promise<void>;
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
  maxConnections?: number;
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
    return {
      db,
      kind: "postgres",
      migrate: () => migratePostgres(drizzlePostgres(client), { migrationsFolder: migrationsFolder() }),
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
  const client = new PGlite(location);
  await client.waitReady;
  const db = drizzlePglite(client, { schema }) as unknown as Database;
  return {
    db,
    kind: "pglite",
    migrate: () => migratePglite(drizzlePglite(client), { migrationsFolder: migrationsFolder() }),
    close: () => client.close(),
  };
}

/** `db.execute` returns an array on postgres-js and `{rows}` on PGlite; this reads both. */
export async function queryRows<T>(executor: Executor, query: SQL): Promise<T[]> {
  const result: unknown = await executor.execute(query);
  if (Array.isArray(result)) return result as T[];
  return (result as { rows: T[] }).rows;
}
