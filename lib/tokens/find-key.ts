import { and, eq, isNull } from "drizzle-orm";
import type { Executor } from "../db/client";
import { apiKeys, apiTokens } from "../db/schema";
import type { LimitPeriod } from "../keys/limit-period";
import type { TokenRecord } from "./find-token";
import { normalizeScopes } from "./key-scopes";

/** The live (not revoked) key with this hash, as the token record its requests run as. */
export async function findKeyByHash(executor: Executor, keyHash: string): Promise<TokenRecord | undefined> {
  const rows = await executor
    .select({
      keyId: apiKeys.id,
      label: apiKeys.label,
      limitMicrounits: apiKeys.limitMicrounits,
      limitPeriod: apiKeys.limitPeriod,
      scopes: apiKeys.scopes,
      responseCache: apiKeys.responseCache,
      tokenId: apiTokens.id,
      accountId: apiTokens.accountId,
      depositCode: apiTokens.depositCode,
      activatedAt: apiTokens.activatedAt,
    })
    .from(apiKeys)
    .innerJoin(apiTokens, eq(apiTokens.id, apiKeys.tokenId))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.tokenId,
    accountId: row.accountId,
    depositCode: row.depositCode,
    activatedAt: row.activatedAt,
    key: {
      id: row.keyId,
      label: row.label,
      limit:
        row.limitMicrounits === null || row.limitPeriod === null
          ? undefined
          : { microunits: row.limitMicrounits, period: row.limitPeriod as LimitPeriod },
      scopes: normalizeScopes(row.scopes),
      responseCache: row.responseCache,
    },
  };
}
