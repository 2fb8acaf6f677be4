import { sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { queryRows } from "../db/client";

/** The daily cap window: a rolling 24 hours, so a capped listing returns as its oldest earnings age out. */
const dailyCapWindowHours = 24;

/**
 * What each host earned (its 80% share, as credited in the ledger) from key-relay requests
 * on one model in the last 24 hours. Reads the metadata settlement writes on each
 * inference transaction (`route`, `model`), so the ledger stays the one source of truth.
 */
export async function relayEarningsLastDay(
  executor: Executor,
  hostIds: readonly string[],
  modelId: string,
): Promise<Map<string, bigint>> {
  if (hostIds.length === 0) return new Map();
  const idList = sql.join(
    hostIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await queryRows<{ ref: string; earned: string | bigint }>(
    executor,
    sql`SELECT a.ref AS ref, COALESCE(SUM(e.amount), 0)::text AS earned
        FROM ledger_entries e
        JOIN accounts a ON a.id = e.account_id
        JOIN ledger_transactions t ON t.id = e.transaction_id
        WHERE a.kind = 'provider' AND a.ref IN (${idList})
          AND t.kind = 'inference'
          AND t.metadata->>'route' = 'key-relay'
          AND t.metadata->>'model' = ${modelId}
          AND e.amount > 0
          AND e.created_at > now() - make_interval(hours => ${dailyCapWindowHours})
        GROUP BY a.ref`,
  );
  return new Map(rows.map((row) => [row.ref, BigInt(row.earned)]));
}
