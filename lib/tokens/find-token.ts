import { eq } from "drizzle-orm";
import type { Executor } from "../db/client";
import { apiTokens } from "../db/schema";
import { hashToken } from "./token-hash";

export interface TokenRecord {
  id: string;
  accountId: bigint;
  depositCode: string;
  activatedAt: Date | null;
}

export async function findToken(executor: Executor, token: string): Promise<TokenRecord | undefined> {
  const rows = await executor
    .select({
      id: apiTokens.id,
      accountId: apiTokens.accountId,
      depositCode: apiTokens.depositCode,
      activatedAt: apiTokens.activatedAt,
    })
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
    .select({
      id: apiTokens.id,
      accountId: apiTokens.accountId,
      depositCode: apiTokens.depositCode,
      activatedAt: apiTokens.activatedAt,
    })
    .from(apiTokens)
    .where(eq(apiTokens.depositCode, depositCode));
  return rows[0];
}
