import { randomBytes } from "node:crypto";
import type { Database } from "../db/client";
import { apiTokens } from "../db/schema";
import { newUuid } from "../ids";
import { ensureAccount } from "../ledger/accounts";
import { hashToken } from "./token-hash";

export interface RegisteredToken {
  token: string;
  depositCode: string;
}

/** Mints a token and its deposit code. Only the token's hash is stored. */
export async function registerToken(database: Database): Promise<RegisteredToken> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const token = newUuid();
    const depositCode = randomBytes(8).toString("hex");
    const inserted = await database.transaction(async (transaction) => {
      const accountId = await ensureAccount(transaction, "token", hashToken(token));
      return transaction
        .insert(apiTokens)
        .values({ tokenHash: hashToken(token), depositCode, accountId })
        .onConflictDoNothing()
        .returning({ id: apiTokens.id });
    });
    // A 64-bit deposit code collision is astronomically rare, but uniqueness is the contract.
    if (inserted.length > 0) return { token, depositCode };
  }
  throw new Error("could not mint a unique token");
}
