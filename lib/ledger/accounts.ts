import { and, eq, sql } from "drizzle-orm";
import { type Executor, queryRows } from "../db/client";
import { accounts } from "../db/schema";

export type AccountKind =
  | "token"
  | "wallet"
  | "provider"
  | "treasury"
  | "external"
  | "suspense"
  | "bond"
  | "payout";

/** Well-known system accounts. External accounts are the outside world and may go negative. */
export const systemAccounts = {
  treasury: { kind: "treasury", ref: "treasury" },
  adminCredits: { kind: "external", ref: "admin-credits" },
  /** Card payments in and refunds/disputes out. */
  stripe: { kind: "external", ref: "stripe" },
  /** USDC that arrived at the deposit wallet on Solana. */
  solanaDeposits: { kind: "external", ref: "solana-usdc-deposits" },
  /** Deposited USDC nobody is credited with yet, until an operator assigns or refunds it. */
  depositSuspense: { kind: "suspense", ref: "solana-deposits" },
  /** Unmatched deposits the operator sends back to their senders. */
  depositRefunds: { kind: "external", ref: "solana-deposit-refunds" },
  /** Usage cost an account could not cover at settlement: the operator's loss, never silent. */
  inferenceLoss: { kind: "external", ref: "inference-loss" },
  /** The operator's verification budget: canary top-ups and the scoring of real answers are drawn from it. */
  verificationBudget: { kind: "external", ref: "verification-budget" },
  /** The caller canary jobs are billed to, like any caller; topped up from the verification budget. */
  canaryCaller: { kind: "suspense", ref: "canary-caller" },
} as const satisfies Record<string, { kind: AccountKind; ref: string }>;

/** Where a centralized upstream's billed-beyond-the-gateway usage is booked: one account per provider. */
export const upstreamExcessPrefix = "upstream-excess:";

export function upstreamExcessAccount(provider: string): { kind: AccountKind; ref: string } {
  return { kind: "external", ref: `${upstreamExcessPrefix}${provider}` };
}

/** Returns the id of the (kind, ref) account, creating it on first use. */
export async function ensureAccount(executor: Executor, kind: AccountKind, ref: string): Promise<bigint> {
  const inserted = await executor
    .insert(accounts)
    .values({ kind, ref })
    .onConflictDoNothing({ target: [accounts.kind, accounts.ref] })
    .returning({ id: accounts.id });
  const first = inserted[0];
  if (first) return first.id;
  const existing = await executor
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.kind, kind), eq(accounts.ref, ref)));
  const row = existing[0];
  if (!row) throw new Error(`account ${kind}:${ref} vanished`);
  return row.id;
}

export interface AccountBalance {
  balance: bigint;
  held: bigint;
  available: bigint;
}

export async function getAccountBalance(executor: Executor, accountId: bigint): Promise<AccountBalance> {
  const rows = await executor
    .select({ balance: accounts.balance, held: accounts.held })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  const row = rows[0];
  if (!row) return { balance: 0n, held: 0n, available: 0n };
  return { balance: row.balance, held: row.held, available: row.balance - row.held };
}

/** A balance as its owner sees it: `available` is net of what the account owes. */
export interface OwnerBalance extends AccountBalance {
  /**
   * Open receivables: what card refunds and disputes reversed beyond what the balance could
   * give back then. It is collected before anything else, so none of it is spendable.
   */
  owed: bigint;
}

/** What new requests could spend: the free balance less what is owed, never below zero. */
export function netAvailable(balance: bigint, held: bigint, owed: bigint): bigint {
  const available = balance - held - owed;
  return available > 0n ? available : 0n;
}

/**
 * The balance as its owner should see it: `held` is what requests in flight reserve, without
 * the balance leases (a process's slice of the balance, mostly unused, given back when idle),
 * which read as money taken; `owed` is its open receivables, and `available` is net of both,
 * at every moment (a refund while streams hold part of the balance leaves the rest owed, and
 * what the streams give back is not spendable). The process's own in-flight part of its
 * lease is added by `BalanceLeases.view`.
 */
export async function getInFlightBalance(executor: Executor, accountId: bigint): Promise<OwnerBalance> {
  const rows = await queryRows<{
    balance: string | bigint;
    held: string | bigint;
    owed: string | bigint;
  }>(
    executor,
    sql`SELECT a.balance, a.held - COALESCE((SELECT SUM(h.amount) FROM holds AS h
                                             WHERE h.account_id = a.id AND left(h.id, 6) = 'lease_'), 0) AS held,
               COALESCE((SELECT SUM(r.outstanding_microunits) FROM receivables AS r
                         WHERE r.account_id = a.id AND r.status = 'open'), 0) AS owed
        FROM accounts AS a WHERE a.id = ${accountId}`,
  );
  const row = rows[0];
  if (!row) return { balance: 0n, held: 0n, available: 0n, owed: 0n };
  const balance = BigInt(row.balance);
  const held = BigInt(row.held);
  const owed = BigInt(row.owed);
  return { balance, held, owed, available: netAvailable(balance, held, owed) };
}
