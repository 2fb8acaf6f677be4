import { bigint, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, randomId } from "./columns";

/** A prepaid API token. Only the sha256 of the token is stored; the token itself is the credential. */
export const apiTokens = pgTable("api_tokens", {
  id: randomId(),
  tokenHash: text("token_hash").notNull().unique(),
  depositCode: text("deposit_code").notNull().unique(),
  accountId: bigint("account_id", { mode: "bigint" })
    .notNull()
    .references(() => accounts.id),
  /** Set by the first credit; the token is `active` from then on. */
  activatedAt: timestamp("activated_at", { withTimezone: true }),
  createdAt: createdAt(),
});
