import { sql } from "drizzle-orm";
import { type Executor, queryRows } from "../db/client";
import { isUuid } from "../ids";
import { getInFlightBalance } from "../ledger/accounts";
import { findToken, type TokenRecord } from "../tokens/find-token";

/** What the dashboard's server components read. Days and months are UTC. */

export async function findDashboardToken(
  executor: Executor,
  token: string | undefined,
): Promise<TokenRecord | undefined> {
  if (token === undefined || !isUuid(token)) return undefined;
  return findToken(executor, token);
}

export interface SpendSummary {
  balance: bigint;
  held: bigint;
  /** Net of `owed`: what new requests can spend. */
  available: bigint;
  /** Owed back after card refunds or disputes the balance could not cover when they came. */
  owed: bigint;
  spentToday: bigint;
  spentThisMonth: bigint;
  requestsThisMonth: number;
}

function startOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

function startOfUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export async function getSpendSummary(
  executor: Executor,
  accountId: bigint,
  now = new Date(),
): Promise<SpendSummary> {
  const balance = await getInFlightBalance(executor, accountId);
  const day = startOfUtcDay(now);
  const month = startOfUtcMonth(now);
  const rows = await queryRows<{ today: string | null; month: string | null; requests: string | number }>(
    executor,
    sql`SELECT COALESCE(SUM(cost_microunits) FILTER (WHERE created_at >= ${day.toISOString()}), 0)::text AS today,
               COALESCE(SUM(cost_microunits), 0)::text AS month,
               COUNT(*) AS requests
        FROM usage_records
        WHERE account_id = ${accountId} AND created_at >= ${month.toISOString()}`,
  );
  const row = rows[0];
  return {
    ...balance,
    spentToday: BigInt(row?.today ?? "0"),
    spentThisMonth: BigInt(row?.month ?? "0"),
    requestsThisMonth: Number(row?.requests ?? 0),
  };
}

export interface DailyModelSpend {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  model: string;
  cost: bigint;
  requests: number;
}

/** Spend per UTC day and model over the last `days` days (today included), oldest first. */
export async function getDailySpendByModel(
  executor: Executor,
  accountId: bigint,
  days: number,
  now = new Date(),
): Promise<DailyModelSpend[]> {
  const from = new Date(startOfUtcDay(now).getTime() - (days - 1) * 86_400_000);
  const rows = await queryRows<{ day: string; model: string; cost: string; requests: string | number }>(
    executor,
    sql`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, model,
               SUM(cost_microunits)::text AS cost, COUNT(*) AS requests
        FROM usage_records
        WHERE account_id = ${accountId} AND created_at >= ${from.toISOString()}
        GROUP BY 1, 2
        ORDER BY 1, 2`,
  );
  return rows.map((row) => ({
    day: row.day,
    model: row.model,
    cost: BigInt(row.cost),
    requests: Number(row.requests),
  }));
}

/** The last `days` UTC day labels, oldest first, so days without spend still get a slot on the chart. */
export function lastUtcDays(days: number, now = new Date()): string[] {
  const today = startOfUtcDay(now).getTime();
  return Array.from({ length: days }, (_, index) =>
    new Date(today - (days - 1 - index) * 86_400_000).toISOString().slice(0, 10),
  );
}
