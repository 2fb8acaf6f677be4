import { sql } from "drizzle-orm";
import { type Executor, queryRows } from "./client";

/** The name the migrations gave this database (`database_identity`): what its file journals are filed under. */
export async function readDatabaseId(executor: Executor): Promise<string> {
  const rows = await queryRows<{ id: string }>(executor, sql`SELECT id FROM database_identity`);
  const id = rows[0]?.id;
  if (!id) throw new Error("database_identity has no row: the database was not migrated");
  return id;
}
