import { eq } from "drizzle-orm";
import type { Executor } from "../db/client";
import { apiTokens } from "../db/schema";
import type { KeyPrincipal } from "../keys/key-principal";
import { hashToken } from "./token-hash";

export interface TokenRecord {
  /** The token's id; for a further API key, the id of the token whose account it spends. */
  id: string;
  accountId: bigint;
  depositCode: string;
  activatedAt: Date | null;
  /** Set when the request was made with a further API key rather than the token itself. */
  key?: KeyPrincipal;
}

/** The columns of a token record, as every lookup selects them. */
const tokenRecordColumns = {
  id: apiTokens.id,
  accountId: apiTokens.accountId,
  depositCode: apiTokens.depositCode,
  activatedAt: apiTokens.activatedAt,
};

export async function findToken(executor: Executor, token: string): Promise<TokenRecord | undefined> {
  const rows = await executor
    .select(tokenRecordColumns)
    .from(apiTokens)
    .where(eq(apiTokens.tokenHash, hashToken(token)));
  return rows[0];
}

/** The token a deposit code belongs to (codes are unique and stored lowercase). */
export async function findTokenByDepositCode(
  executor: Executor,
  depositCode: string,
): Promise<TokenRecord | undefined> {
  const rows = await executor
    .select(tokenRecordColumns)
    .from(apiTokens)
    .where(eq(apiTokens.depositCode, depositCode));
  return rows[0];
}
