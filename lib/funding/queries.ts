import { desc, eq } from "drizzle-orm";
import type { Executor } from "../db/client";
import { cardSessions, chainDeposits, receivables } from "../db/schema";

/** How money came in (and went back out) for one token, for its dashboard. */

export interface CardPayment {
  sessionId: string;
  status: string;
  credit: bigint;
  amountTotal: bigint;
  fee: bigint;
  currency: string;
  reversed: bigint;
  createdAt: Date;
  creditedAt: Date | null;
}

export async function listCardPayments(
  executor: Executor,
  accountId: bigint,
  limit = 50,
): Promise<CardPayment[]> {
  const rows = await executor
    .select()
    .from(cardSessions)
    .where(eq(cardSessions.accountId, accountId))
    .orderBy(desc(cardSessions.createdAt))
    .limit(limit);
  return rows.map((row) => ({
    sessionId: row.id,
    status: row.status,
    credit: row.creditMicrounits,
    amountTotal: row.amountTotal,
    fee: row.feeAmount,
    currency: row.currency,
    reversed: row.reversedMicrounits,
    createdAt: row.createdAt,
    creditedAt: row.creditedAt,
  }));
}

export interface Receivable {
  id: bigint;
  amount: bigint;
  /** Still owed: netted from the next funding. */
  outstanding: bigint;
  /** open | settled | won */
  status: string;
  source: string;
  sessionId: string | null;
  createdAt: Date;
}

/** Refunds and disputes the balance could not cover when they arrived, and what is still owed. */
export async function listReceivables(executor: Executor, accountId: bigint): Promise<Receivable[]> {
  const rows = await executor
    .select()
    .from(receivables)
    .where(eq(receivables.accountId, accountId))
    .orderBy(desc(receivables.createdAt));
  return rows.map((row) => ({
    id: row.id,
    amount: row.amountMicrounits,
    outstanding: row.outstandingMicrounits,
    status: row.status,
    source: row.source,
    sessionId: row.sessionId,
    createdAt: row.createdAt,
  }));
}

export interface ChainDepositView {
  signature: string;
  network: string;
  amount: bigint;
  status: string;
  blockTime: Date | null;
  createdAt: Date;
}

/** On-chain deposits credited to a token (the explorer link is the signature). */
export async function listTokenDeposits(
  executor: Executor,
  tokenId: string,
  limit = 50,
): Promise<ChainDepositView[]> {
  const rows = await executor
    .select()
    .from(chainDeposits)
    .where(eq(chainDeposits.tokenId, tokenId))
    .orderBy(desc(chainDeposits.createdAt))
    .limit(limit);
  return rows.map((row) => ({
    signature: row.signature,
    network: row.network,
    amount: row.amount,
    status: row.status,
    blockTime: row.blockTime,
    createdAt: row.createdAt,
  }));
}
