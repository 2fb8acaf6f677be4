import { sql } from "drizzle-orm";
import { boolean, check, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

/**
 * One row naming this database. File journals carry the name, so a gateway only ever replays
 * what was served against its own database, whatever directory the journals share.
 */
export const databaseIdentity = pgTable(
  "database_identity",
  {
    singleton: boolean("singleton").primaryKey().default(true),
    id: text("id").notNull(),
    createdAt: createdAt(),
  },
  (table) => [check("database_identity_singleton", sql`${table.singleton}`)],
);
