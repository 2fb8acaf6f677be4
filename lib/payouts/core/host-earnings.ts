import { and, desc, eq, gte, lt, sql } from "drizzle-orm";
import type { Executor } from "../../db/client";
import { hostPayouts, ledgerEntries, ledgerTransactions, usageReceipts } from "../../db/schema";
import type { Env } from "../../env";
import { ensureAccount, getAccountBalance } from "../../ledger/accounts";
import { immatureEarnings } from "./immature-earnings";

export interface HostEarnings {
  balance: bigint;
  /** Credited within the maturity period: not withdrawable yet. */
  maturing: bigint;
  withdrawable: bigint;
  pending: bigint;
}

/**
 * What a host has earned and not withdrawn, how much of it is still maturing, and how much
 * may leave today: matured, within the daily cap, and nothing at all while the host is suspended.
 */
export async function hostEarnings(
  executor: Executor,
  env: Env,
  host: { id: string; status: string },
): Promise<HostEarnings> {
  const hostId = host.id;
  const accountId = await ensureAccount(executor, "provider", hostId);
  const { balance } = await getAccountBalance(executor, accountId);
  const immature = await immatureEarnings(executor, accountId, env.HOST_EARNINGS_MATURITY_SECONDS);
  const maturing = immature < balance ? immature : balance;
  const matured = balance - maturing;
  const since = new Date(Date.now() - 24 * 3600 * 1000);
  const [sums] = await executor
    .select({
      today: sql<string>`COALESCE(SUM(CASE WHEN ${hostPayouts.createdAt} >= ${since.toISOString()}::timestamptz AND ${hostPayouts.status} <> 'failed' THEN ${hostPayouts.amount} END), 0)`,
      pending: sql<string>`COALESCE(SUM(CASE WHEN ${hostPayouts.status} IN ('awaiting_approval', 'requested', 'broadcast') THEN ${hostPayouts.amount} END), 0)`,
    })
    .from(hostPayouts)
    .where(and(eq(hostPayouts.hostId, hostId), eq(hostPayouts.kind, "withdrawal")));
  const capLeft = env.HOST_WITHDRAW_DAILY_CAP_MICROUNITS - BigInt(sums?.today ?? "0");
  const withdrawable = matured < capLeft ? matured : capLeft > 0n ? capLeft : 0n;
  return {
    balance,
    maturing,
    withdrawable:
      host.status !== "suspended" && withdrawable >= env.HOST_WITHDRAW_MIN_MICROUNITS ? withdrawable : 0n,
    pending: BigInt(sums?.pending ?? "0"),
  };
}

export interface HostTransaction {
  id: string;
  kind: string;
  amount: bigint;
  createdAt: Date;
  metadata: Record<string, unknown>;
  /** A job's signed usage receipt, when one was issued. */
  receipt: string | null;
}

/** The host's ledger lines, newest first: inference credits (+) and withdrawals (−). */
export async function hostTransactions(
  executor: Executor,
  hostId: string,
  options: { limit: number; before?: Date },
): Promise<HostTransaction[]> {
  const accountId = await ensureAccount(executor, "provider", hostId);
  const rows = await executor
    .select({
      id: ledgerTransactions.id,
      kind: ledgerTransactions.kind,
      amount: ledgerEntries.amount,
      createdAt: ledgerEntries.createdAt,
      metadata: ledgerTransactions.metadata,
      receipt: usageReceipts.jws,
    })
    .from(ledgerEntries)
    .innerJoin(ledgerTransactions, eq(ledgerTransactions.id, ledgerEntries.transactionId))
    .leftJoin(usageReceipts, eq(usageReceipts.requestId, sql`${ledgerTransactions.metadata}->>'request_id'`))
    .where(
      and(
        eq(ledgerEntries.accountId, accountId),
        ...(options.before ? [lt(ledgerEntries.createdAt, options.before)] : []),
      ),
    )
    .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id))
    .limit(options.limit);
  return rows;
}

export async function hostPayoutList(executor: Executor, hostId: string) {
  return executor
    .select()
    .from(hostPayouts)
    .where(and(eq(hostPayouts.hostId, hostId), gte(hostPayouts.createdAt, new Date(0))))
    .orderBy(desc(hostPayouts.createdAt))
    .limit(50);
}
