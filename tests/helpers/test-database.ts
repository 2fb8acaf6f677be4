import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { type DatabaseHandle, openDatabase } from "../../lib/db/client";

export interface TestDatabase {
  /** Postgres URL of a fresh database, or undefined to run on in-memory PGlite. */
  url: string | undefined;
  dataDir: string;
  drop(): Promise<void>;
}

/**
 * Tests run on embedded PGlite by default and on real Postgres when TEST_DATABASE_URL is
 * set (unless `memory` asks for PGlite in memory anyway); each caller gets a database of its
 * own so files can run in parallel.
 */
export async function createTestDatabase(options: { memory?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = options.memory ? undefined : process.env.TEST_DATABASE_URL;
  if (!adminUrl) return { url: undefined, dataDir: "memory://", drop: async () => {} };
  const name = `pod_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dataDir: "memory://",
    async drop() {
      const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

/**
 * A database of the caller's own, migrated and opened in this process (PGlite on the test's own
 * thread), for suites that call the ledger directly; `close` closes and drops it.
 */
export async function openTestLedger(): Promise<{ handle: DatabaseHandle; close(): Promise<void> }> {
  const database = await createTestDatabase();
  const handle = await openDatabase({ url: database.url, dataDir: database.dataDir, pgliteThread: "main" });
  await handle.migrate();
  return {
    handle,
    async close() {
      await handle.close();
      await database.drop();
    },
  };
}
