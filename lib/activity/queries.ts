import { sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { queryRows } from "../db/client";
import { getInFlightBalance, type OwnerBalance } from "../ledger/accounts";

/**
 * What a token's dashboard shows about its money: balance, spend over time and per model,
 * and the credits and debits behind them. Every amount is bigint microunits; days are UTC.
 */

/**
 * Held is what requests in flight reserve, without balance leases; `owed` is what refunds or
 * disputes reversed beyond the balance, and `available` is net of it (see `getInFlightBalance`).
 */
export function getBalanceSummary(executor: Executor, accountId: bigint): Promise<OwnerBalance> {
  return getInFlightBalance(executor, accountId);
}

export interface SpendTotals {
  today: bigint;
  thisMonth: bigint;
  requestsToday: number;
  requestsThisMonth: number;
}

/** Billed inference since UTC midnight and since the first of the UTC month. */
export async function getSpendTotals(
  executor: Executor,
  accountId: bigint,
  now: Date = new Date(),
  apiKeyId?: string,
): Promise<SpendTotals> {
  const day = startOfUtcDay(now);
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const rows = await queryRows<{ today: string; month: string; today_count: string; month_count: string }>(
    executor,
    sql`SELECT COALESCE(SUM(cost_microunits) FILTER (WHERE created_at >= ${day.toISOString()}::timestamptz), 0)::text AS today,
               COALESCE(SUM(cost_microunits), 0)::text AS month,
               COUNT(*) FILTER (WHERE created_at >= ${day.toISOString()}::timestamptz)::text AS today_count,
               COUNT(*)::text AS month_count
        FROM usage_records
        WHERE account_id = ${accountId} AND created_at >= ${month.toISOString()}::timestamptz ${ofKey(apiKeyId)}`,
  );
  const row = rows[0];
  return {
    today: BigInt(row?.today ?? "0"),
    thisMonth: BigInt(row?.month ?? "0"),
    requestsToday: Number(row?.today_count ?? 0),
    requestsThisMonth: Number(row?.month_count ?? 0),
  };
}

export interface DailySpend {
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  model: string;
  cost: bigint;
  requests: number;
}

/**
 * Spend per UTC day and model over the last `days` days (today included), oldest first,
 * for a stacked chart. Days without spend are absent; `chartDays` lists every day.
 */
export async function getSpendByDayAndModel(
  executor: Executor,
  accountId: bigint,
  days = 30,
  now: Date = new Date(),
  apiKeyId?: string,
): Promise<DailySpend[]> {
  const since = new Date(startOfUtcDay(now).getTime() - (days - 1) * 86_400_000);
  const rows = await queryRows<{ day: string; model: string; cost: string; requests: string }>(
    executor,
    sql`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, model,
               SUM(cost_microunits)::text AS cost, COUNT(*)::text AS requests
        FROM usage_records
        WHERE account_id = ${accountId} AND created_at >= ${since.toISOString()}::timestamptz ${ofKey(apiKeyId)}
        GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  return rows.map((row) => ({
    day: row.day,
    model: row.model,
    cost: BigInt(row.cost),
    requests: Number(row.requests),
  }));
}

export interface ModelSpend {
  model: string;
  cost: bigint;
  requests: number;
  inputTokens: number;
  outputTokens: number;
}

/** Spend per model over the last `days` days, most expensive first. */
export async function getSpendByModel(
  executor: Executor,
  accountId: bigint,
  days = 30,
  now: Date = new Date(),
  apiKeyId?: string,
): Promise<ModelSpend[]> {
  const since = new Date(startOfUtcDay(now).getTime() - (days - 1) * 86_400_000);
  const rows = await queryRows<{
    model: string;
    cost: string;
    requests: string;
    input: string;
    output: string;
  }>(
    executor,
    sql`SELECT model, SUM(cost_microunits)::text AS cost, COUNT(*)::text AS requests,
               SUM(input_tokens)::text AS input, SUM(output_tokens)::text AS output
        FROM usage_records
        WHERE account_id = ${accountId} AND created_at >= ${since.toISOString()}::timestamptz ${ofKey(apiKeyId)}
        GROUP BY model ORDER BY SUM(cost_microunits) DESC, model`,
  );
  return rows.map((row) => ({
    model: row.model,
    cost: BigInt(row.cost),
    requests: Number(row.requests),
    inputTokens: Number(row.input),
    outputTokens: Number(row.output),
  }));
}

/** Every UTC day of a chart window, oldest first, so a chart can show the empty ones. */
export function chartDays(days = 30, now: Date = new Date()): string[] {
  const today = startOfUtcDay(now).getTime();
  return Array.from({ length: days }, (_, index) =>
    new Date(today - (days - 1 - index) * 86_400_000).toISOString().slice(0, 10),
  );
}

export interface ActivityItem {
  /** Paging cursor: pass as `before` for the next page. */
  entryId: string;
  transactionId: string;
  kind: string;
  /** Signed: credits positive, spend negative. */
  amount: bigint;
  createdAt: Date;
  metadata: Record<string, unknown>;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  /** The label of the API key that made the request, when not the token itself. */
  apiKeyLabel: string | null;
  /** The request's signed usage receipt (a compact JWS), when one was issued. */
  receipt: string | null;
}

export interface ActivityPage {
  items: ActivityItem[];
  nextCursor: string | null;
}

/** The account's ledger entries newest first, with usage for inference rows (GET /proxy/<token>/transactions). */
export async function listActivity(
  executor: Executor,
  accountId: bigint,
  options: {
    limit: number;
    before?: bigint | undefined;
    kinds?: readonly string[];
    model?: string | undefined;
    route?: string | undefined;
    /** Only this key's requests (a key without the `read` scope sees nothing else). */
    apiKeyId?: string | undefined;
  },
): Promise<ActivityPage> {
  const kinds = options.kinds && options.kinds.length > 0 ? options.kinds : undefined;
  const rows = await queryRows<{
    entry_id: string;
    transaction_id: string;
    kind: string;
    amount: string;
    created_at: Date | string;
    metadata: Record<string, unknown>;
    input_tokens: number | null;
    output_tokens: number | null;
    cache_read_tokens: number | null;
    cache_write_tokens: number | null;
    api_key_label: string | null;
    receipt: string | null;
  }>(
    executor,
    sql`SELECT e.id::text AS entry_id, t.id AS transaction_id, t.kind, e.amount::text AS amount, e.created_at, t.metadata,
               u.input_tokens::float8 AS input_tokens, u.output_tokens::float8 AS output_tokens,
               u.cache_read_tokens::float8 AS cache_read_tokens, u.cache_write_tokens::float8 AS cache_write_tokens,
               k.label AS api_key_label, r.jws AS receipt
        FROM ledger_entries e
        JOIN ledger_transactions t ON t.id = e.transaction_id
        LEFT JOIN usage_records u ON u.request_id = t.metadata->>'request_id'
        LEFT JOIN api_keys k ON k.id = u.api_key_id
        LEFT JOIN usage_receipts r ON r.request_id = t.metadata->>'request_id'
        WHERE e.account_id = ${accountId}
          ${options.model === undefined ? sql`` : sql`AND t.metadata->>'model' = ${options.model}`}
          ${options.route === undefined ? sql`` : sql`AND t.metadata->>'route' = ${options.route}`}
          ${options.apiKeyId === undefined ? sql`` : sql`AND u.api_key_id = ${options.apiKeyId}`}
          ${options.before === undefined ? sql`` : sql`AND e.id < ${options.before}`}
          ${
            kinds
              ? sql`AND t.kind IN (${sql.join(
                  kinds.map((kind) => sql`${kind}`),
                  sql`, `,
                )})`
              : sql``
          }
        ORDER BY e.id DESC
        LIMIT ${options.limit}`,
  );
  const items = rows.map((row) => ({
    entryId: row.entry_id,
    transactionId: row.transaction_id,
    kind: row.kind,
    amount: BigInt(row.amount),
    createdAt: new Date(row.created_at),
    metadata: row.metadata,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cacheReadTokens: row.cache_read_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    apiKeyLabel: row.api_key_label,
    receipt: row.receipt,
  }));
  const last = items.at(-1);
  return { items, nextCursor: items.length === options.limit && last ? last.entryId : null };
}

/** Usage records of one key only, when a key without the `read` scope asks. */
function ofKey(apiKeyId: string | undefined) {
  return apiKeyId === undefined ? sql`` : sql`AND api_key_id = ${apiKeyId}`;
}

function startOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}
