import { and, eq, gte, inArray, like, ne, sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { accounts, hosts, ledgerEntries, ledgerTransactions } from "../db/schema";
import { systemAccounts } from "../ledger/accounts";

/**
 * What verification costs the operator, from the ledger: canary jobs (paid by the canary caller,
 * topped up from the verification budget) and the reference scoring of real answers (booked from
 * the budget to one account per host). Nothing here is estimated: each figure is a sum of entries
 * or a balance.
 */
export interface VerificationSpend {
  /** Everything drawn from the budget: canary top-ups and scoring. */
  drawnMicrounits: bigint;
  /** Canary jobs paid for, all time (top-ups less what the canary caller still holds). */
  canaryMicrounits: bigint;
  /** Topped up for canaries and not spent yet. */
  canaryFloatMicrounits: bigint;
  scoringMicrounits: bigint;
  /** Since 00:00 UTC. */
  canaryTodayMicrounits: bigint;
  scoringTodayMicrounits: bigint;
  /** Scoring per host, the dearest first. */
  hosts: { hostId: string; name: string; scoringMicrounits: bigint }[];
}

const scoringPrefix = "verification:";

export async function readVerificationSpend(
  executor: Executor,
  now = new Date(),
): Promise<VerificationSpend> {
  const { verificationBudget, canaryCaller } = systemAccounts;
  const balanceOf = async (kind: string, ref: string) =>
    (
      await executor
        .select({ balance: accounts.balance })
        .from(accounts)
        .where(and(eq(accounts.kind, kind), eq(accounts.ref, ref)))
    )[0]?.balance ?? 0n;
  const drawn = -(await balanceOf(verificationBudget.kind, verificationBudget.ref));
  const float = await balanceOf(canaryCaller.kind, canaryCaller.ref);
  const perHost = await executor
    .select({ ref: accounts.ref, balance: accounts.balance })
    .from(accounts)
    .where(and(eq(accounts.kind, "suspense"), like(accounts.ref, `${scoringPrefix}%`)));
  const scoring = perHost.reduce((total, row) => total + row.balance, 0n);

  const midnight = new Date(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
  const sumToday = (where: ReturnType<typeof and>) =>
    executor
      .select({ total: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)` })
      .from(ledgerEntries)
      .innerJoin(ledgerTransactions, eq(ledgerTransactions.id, ledgerEntries.transactionId))
      .innerJoin(accounts, eq(accounts.id, ledgerEntries.accountId))
      .where(and(gte(ledgerTransactions.createdAt, midnight), where))
      .then(([row]) => BigInt(row?.total ?? 0));
  // Every movement of the canary caller but its top-ups is a canary job charged (or refunded).
  const canaryToday = -(await sumToday(
    and(
      eq(accounts.kind, canaryCaller.kind),
      eq(accounts.ref, canaryCaller.ref),
      ne(ledgerTransactions.kind, "canary_budget"),
    ),
  ));
  const scoringToday = await sumToday(
    and(eq(ledgerTransactions.kind, "verification_check"), like(accounts.ref, `${scoringPrefix}%`)),
  );

  const ids = perHost.map((row) => row.ref.slice(scoringPrefix.length));
  const names = new Map(
    ids.length === 0
      ? []
      : (
          await executor
            .select({ id: hosts.id, name: hosts.displayName })
            .from(hosts)
            .where(inArray(hosts.id, ids))
        ).map((row) => [row.id, row.name]),
  );
  return {
    drawnMicrounits: drawn,
    canaryMicrounits: drawn - scoring - float,
    canaryFloatMicrounits: float,
    scoringMicrounits: scoring,
    canaryTodayMicrounits: canaryToday,
    scoringTodayMicrounits: scoringToday,
    hosts: perHost
      .map((row) => {
        const hostId = row.ref.slice(scoringPrefix.length);
        return { hostId, name: names.get(hostId) ?? hostId, scoringMicrounits: row.balance };
      })
      .sort((a, b) =>
        a.scoringMicrounits === b.scoringMicrounits ? 0 : a.scoringMicrounits > b.scoringMicrounits ? -1 : 1,
      ),
  };
}
