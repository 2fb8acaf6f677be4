import { uuid } from "drizzle-orm/pg-core";
import { hosts } from "./hosts";
import { apiTokens } from "./tokens";

// The owner columns of rows that belong to a token or a host, as fresh builders per table
// (see columns.ts). tokens.ts and hosts.ts cannot use them: they define what these point at.

/** The API token the row belongs to. */
export const tokenRef = () =>
  uuid("token_id")
    .notNull()
    .references(() => apiTokens.id);

/** The token a one-row-per-token table is keyed by. */
export const tokenKey = () =>
  uuid("token_id")
    .primaryKey()
    .references(() => apiTokens.id);

/** The host the row belongs to. */
export const hostRef = () =>
  uuid("host_id")
    .notNull()
    .references(() => hosts.id);
