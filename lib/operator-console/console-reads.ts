import { and, asc, desc, eq, inArray, ne, sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { accounts, type HostPayout, hostPayouts, hosts, models, receivables } from "../db/schema";
import { systemAccounts } from "../ledger/accounts";
import { readUpstreamExcess, type UpstreamExcess } from "../ledger/upstream-excess";
import type { Standing } from "../providers/host-standing";
import { loadReputations } from "../trust/reputation";

/** What the operator console reads: plain functions of the database, as the person's pages' queries. */

export interface ConsoleHost {
  id: string;
  name: string;
  status: string;
  standing: Standing;
  reasons: string[];
  enrolledAt: Date;
  activatedAt: Date | null;
  /** When the gateway last heard the host's agent (kept across its disconnects and our restarts). */
  agentLastSeenAt: Date | null;
  bondMicrounits: bigint;
  earningsMicrounits: bigint;
}

/** Every host, those needing a look first (excluded, then demoted), then by enrolment. */
export async function listConsoleHosts(executor: Executor): Promise<ConsoleHost[]> {
  const rows = await executor
    .select({
      id: hosts.id,
      name: hosts.displayName,
      status: hosts.status,
      enrolledAt: hosts.enrolledAt,
      activatedAt: hosts.activatedAt,
      agentLastSeenAt: hosts.agentLastSeenAt,
    })
    .from(hosts)
    .orderBy(asc(hosts.enrolledAt))
    .limit(500);
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const reputations = await loadReputations(executor, ids);
  const balances = await executor
    .select({ kind: accounts.kind, ref: accounts.ref, balance: accounts.balance })
    .from(accounts)
    .where(and(inArray(accounts.kind, ["bond", "provider"]), inArray(accounts.ref, ids)));
  const balanceOf = (kind: string, id: string) =>
    balances.find((row) => row.kind === kind && row.ref === id)?.balance ?? 0n;
  const order: Record<Standing, number> = { excluded: 0, demoted: 1, good: 2 };
  return rows
    .map((row) => {
      const reputation = reputations.get(row.id);
      return {
        ...row,
        standing: reputation?.standing ?? "good",
        reasons: reputation?.reasons ?? [],
        bondMicrounits: balanceOf("bond", row.id),
        earningsMicrounits: balanceOf("provider", row.id),
      };
    })
    .sort((a, b) => order[a.standing] - order[b.standing]);
}

export async function findConsoleHost(executor: Executor, id: string): Promise<ConsoleHost | undefined> {
  return (await listConsoleHosts(executor)).find((host) => host.id === id);
}

/** Payouts awaiting approval first, then the newest. */
export async function listConsolePayouts(executor: Executor): Promise<(HostPayout & { hostName: string })[]> {
  const rows = await executor
    .select({ payout: hostPayouts, hostName: hosts.displayName })
    .from(hostPayouts)
    .innerJoin(hosts, eq(hosts.id, hostPayouts.hostId))
    .orderBy(sql`${hostPayouts.status} = 'awaiting_approval' DESC`, desc(hostPayouts.createdAt))
    .limit(200);
  return rows.map((row) => ({ ...row.payout, hostName: row.hostName }));
}

export interface SystemAccount {
  id: bigint;
  kind: string;
  ref: string;
  balance: bigint;
  held: bigint;
}

/**
 * The gateway's own accounts: the treasury, the outside world's (card, chains, credits, the
 * losses), suspense and payouts. New ones (upstream excess, verification spend) show as soon
 * as the ledger has them.
 */
export async function listSystemAccounts(executor: Executor): Promise<SystemAccount[]> {
  return executor
    .select({
      id: accounts.id,
      kind: accounts.kind,
      ref: accounts.ref,
      balance: accounts.balance,
      held: accounts.held,
    })
    .from(accounts)
    .where(inArray(accounts.kind, ["treasury", "external", "suspense", "payout"]))
    .orderBy(asc(accounts.kind), asc(accounts.ref));
}

export interface OpenReceivable {
  id: bigint;
  accountId: bigint;
  source: string;
  reference: string;
  amountMicrounits: bigint;
  outstandingMicrounits: bigint;
  createdAt: Date;
}

/** Refunds and disputes a balance could not cover yet. */
export async function listOpenReceivables(executor: Executor): Promise<OpenReceivable[]> {
  return executor
    .select({
      id: receivables.id,
      accountId: receivables.accountId,
      source: receivables.source,
      reference: receivables.reference,
      amountMicrounits: receivables.amountMicrounits,
      outstandingMicrounits: receivables.outstandingMicrounits,
      createdAt: receivables.createdAt,
    })
    .from(receivables)
    .where(and(eq(receivables.status, "open"), ne(receivables.outstandingMicrounits, 0n)))
    .orderBy(desc(receivables.createdAt))
    .limit(200);
}

/** Models an operator disabled (the catalog the requests see leaves them out), to enable again. */
export async function listDisabledModels(executor: Executor): Promise<string[]> {
  const rows = await executor
    .select({ id: models.id })
    .from(models)
    .where(eq(models.disabled, true))
    .orderBy(asc(models.id))
    .limit(200);
  return rows.map((row) => row.id);
}

/**
 * What each centralized upstream reported beyond what the gateway billed (the meter's caps),
 * per provider and in total: the operator's cost beyond its revenue, booked at settlement.
 */
export function readConsoleUpstreamExcess(executor: Executor): Promise<UpstreamExcess> {
  return readUpstreamExcess(executor);
}

/** Usage no balance could cover, in all: the loss account is debited by it (0 before any loss). */
export async function readLosses(executor: Executor): Promise<bigint> {
  const { kind, ref } = systemAccounts.inferenceLoss;
  const [row] = await executor
    .select({ balance: accounts.balance })
    .from(accounts)
    .where(and(eq(accounts.kind, kind), eq(accounts.ref, ref)));
  return -(row?.balance ?? 0n);
}
