import type { ApiKeyView, KeyLimitView, KeyScope } from "@pod-gateway/contracts/account-keys";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { queryRows } from "../db/client";
import { apiKeys } from "../db/schema";
import { GatewayError } from "../errors/gateway-error";
import { newUuid } from "../ids";
import type { KeySpendLimits } from "../keys/key-spend-limits";
import { type LimitPeriod, periodEnd, periodStart } from "../keys/limit-period";
import { forgetAuthenticated } from "./authenticate-token";
import type { TokenRecord } from "./find-token";
import { hasScope, normalizeScopes } from "./key-scopes";
import { hashToken } from "./token-hash";

type KeyRow = typeof apiKeys.$inferSelect;

/** An account may hold this many keys, revoked ones included (they stay listed with their spend). */
const maxKeysPerAccount = 100;

export interface IssuedKey {
  row: KeyRow;
  /** The key itself: shown once, only its hash is kept. */
  secret: string;
}

/**
 * The token, or a key with the `manage` scope, manages the account's keys; a key never hands
 * out a scope it does not hold itself.
 */
function requireGrantable(principal: TokenRecord, scopes: readonly KeyScope[]): void {
  for (const scope of scopes)
    if (scope !== "inference" && !hasScope(principal, scope))
      throw new GatewayError(
        "forbidden",
        `forbidden: a key cannot create a key with the "${scope}" scope it does not have itself`,
        { details: { required_scope: scope } },
      );
}

const hintOf = (secret: string) => secret.slice(-6);

export async function createKey(
  database: Database,
  owner: TokenRecord,
  input: {
    label: string;
    limit?: KeyLimitView | null | undefined;
    scopes?: KeyScope[] | undefined;
    response_cache?: boolean | undefined;
  },
): Promise<IssuedKey> {
  const scopes = normalizeScopes(input.scopes);
  requireGrantable(owner, scopes);
  const secret = newUuid();
  const row = await database.transaction(async (transaction) => {
    // Counted under the token's row lock, so racing creations cannot pass the cap together.
    await queryRows(transaction, sql`SELECT id FROM api_tokens WHERE id = ${owner.id} FOR UPDATE`);
    const [counted] = await queryRows<{ count: string | number }>(
      transaction,
      sql`SELECT COUNT(*) AS count FROM api_keys WHERE token_id = ${owner.id}`,
    );
    if (Number(counted?.count ?? 0) >= maxKeysPerAccount)
      throw new GatewayError("conflict", `conflict: an account holds at most ${maxKeysPerAccount} keys`);
    const [inserted] = await transaction
      .insert(apiKeys)
      .values({
        tokenId: owner.id,
        accountId: owner.accountId,
        keyHash: hashToken(secret),
        hint: hintOf(secret),
        label: input.label,
        limitMicrounits: input.limit ? BigInt(input.limit.amount_microunits) : null,
        limitPeriod: input.limit ? input.limit.period : null,
        scopes,
        responseCache: input.response_cache ?? false,
      })
      .returning();
    return inserted;
  });
  if (!row) throw new Error("api key insert returned nothing");
  return { row, secret };
}

export async function listKeys(database: Database, owner: TokenRecord): Promise<KeyRow[]> {
  return database.select().from(apiKeys).where(eq(apiKeys.tokenId, owner.id)).orderBy(asc(apiKeys.createdAt));
}

async function ownedKey(database: Database, owner: TokenRecord, keyId: string): Promise<KeyRow> {
  const [row] = /^[0-9a-f-]{36}$/i.test(keyId)
    ? await database
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.id, keyId), eq(apiKeys.tokenId, owner.id)))
    : [];
  // Another account's key is as unknown as one that never existed.
  if (!row) throw new GatewayError("not_found", "not found: no such key on this account");
  return row;
}

/** Revoked at once here, within a second on other replicas (their authentication cache). */
export async function revokeKey(database: Database, owner: TokenRecord, keyId: string): Promise<KeyRow> {
  const row = await ownedKey(database, owner, keyId);
  const [revoked] = await database
    .update(apiKeys)
    .set({ revokedAt: sql`COALESCE(${apiKeys.revokedAt}, now())` })
    .where(eq(apiKeys.id, row.id))
    .returning();
  await forgetAuthenticated(database, row.keyHash);
  return revoked ?? row;
}

/** A new secret for the same key (label, limit and spend kept); the old one stops working. */
export async function rotateKey(database: Database, owner: TokenRecord, keyId: string): Promise<IssuedKey> {
  const row = await ownedKey(database, owner, keyId);
  const secret = newUuid();
  const [rotated] = await database
    .update(apiKeys)
    .set({ keyHash: hashToken(secret), hint: hintOf(secret), rotatedAt: new Date() })
    .where(and(eq(apiKeys.id, row.id), isNull(apiKeys.revokedAt)))
    .returning();
  if (!rotated)
    throw new GatewayError("conflict", "conflict: a revoked key cannot be rotated; create a new one");
  await forgetAuthenticated(database, row.keyHash);
  return { row: rotated, secret };
}

export async function updateKey(
  database: Database,
  owner: TokenRecord,
  keyId: string,
  input: {
    label?: string | undefined;
    limit?: KeyLimitView | null | undefined;
    response_cache?: boolean | undefined;
  },
): Promise<KeyRow> {
  const row = await ownedKey(database, owner, keyId);
  if (owner.key?.id === row.id && input.limit !== undefined)
    throw new GatewayError(
      "forbidden",
      "forbidden: a key cannot change its own limit; use the account's token",
    );
  const [updated] = await database
    .update(apiKeys)
    .set({
      ...(input.label === undefined ? {} : { label: input.label }),
      ...(input.response_cache === undefined ? {} : { responseCache: input.response_cache }),
      ...(input.limit === undefined
        ? {}
        : {
            limitMicrounits: input.limit === null ? null : BigInt(input.limit.amount_microunits),
            limitPeriod: input.limit === null ? null : input.limit.period,
          }),
    })
    .where(eq(apiKeys.id, row.id))
    .returning();
  await forgetAuthenticated(database, row.keyHash);
  return updated ?? row;
}

/** Spend per key in each key's current period (its limit's, else this UTC month), from usage records. */
async function spentByKey(database: Database, rows: KeyRow[], now: Date): Promise<Map<string, bigint>> {
  const spent = new Map<string, bigint>();
  if (rows.length === 0) return spent;
  const windows = rows.map((row) => ({
    id: row.id,
    since: periodStart((row.limitPeriod as LimitPeriod | null) ?? "month", now).toISOString(),
  }));
  const found = await queryRows<{ id: string; spent: string | bigint }>(
    database,
    sql`SELECT w.id, COALESCE(SUM(u.cost_microunits), 0)::text AS spent
        FROM jsonb_to_recordset(${JSON.stringify(windows)}::jsonb) AS w(id uuid, since timestamptz)
        LEFT JOIN usage_records u ON u.api_key_id = w.id AND u.created_at >= w.since
        GROUP BY w.id`,
  );
  for (const row of found) spent.set(String(row.id), BigInt(row.spent));
  return spent;
}

/** The keys as the API and the dashboard show them, with what each spent in its period. */
export async function keyViews(
  database: Database,
  limits: KeySpendLimits | undefined,
  rows: KeyRow[],
  now = new Date(),
): Promise<ApiKeyView[]> {
  const stored = await spentByKey(database, rows, now);
  return Promise.all(
    rows.map(async (row) => {
      const period = row.limitPeriod as LimitPeriod | null;
      const limit =
        row.limitMicrounits === null || period === null
          ? null
          : { amount_microunits: Number(row.limitMicrounits), period };
      // This process's own charges count before they are written (the limit sees them too).
      const spent =
        limit && limits
          ? await limits.spent(
              row.id,
              { microunits: BigInt(limit.amount_microunits), period: limit.period },
              now,
            )
          : (stored.get(row.id) ?? 0n);
      return {
        id: row.id,
        label: row.label,
        hint: row.hint,
        limit,
        scopes: normalizeScopes(row.scopes),
        response_cache: row.responseCache,
        spent_microunits: Number(spent > (stored.get(row.id) ?? 0n) ? spent : (stored.get(row.id) ?? 0n)),
        resets_at: period === null ? null : periodEnd(period, now).toISOString(),
        status: row.revokedAt === null ? "active" : "revoked",
        created_at: row.createdAt.toISOString(),
        rotated_at: row.rotatedAt?.toISOString() ?? null,
        revoked_at: row.revokedAt?.toISOString() ?? null,
      } satisfies ApiKeyView;
    }),
  );
}
