import { randomUUID } from "node:crypto";
import { and, eq, gt, inArray, ne, sql } from "drizzle-orm";
import { accounts, hostSlashes, hosts, usageRecords } from "../db/schema";
import { GatewayError } from "../errors/gateway-error";
import { ensureAccount, getAccountBalance, systemAccounts } from "../ledger/accounts";
import { postTransaction } from "../ledger/post-transaction";
import { log } from "../log";
import { immatureEarnings } from "../payouts/core/immature-earnings";
import { payoutAccountIds } from "../payouts/core/payout-accounts";
import type { TrustServices } from "./trust-services";

/** Where slashed money waits, inside the slash's own transaction, to be paid back. Always empty after. */
const refundPool = { kind: "suspense", ref: "slash-refund-pool" } as const;
/** Callers served at least this far back are owed a refund, however short the maturity period. */
const minimumWindowSeconds = 24 * 3600;

export interface SlashInput {
  hostId: string;
  trigger: "admin" | "automatic";
  /** In words: what the host did. */
  reason: string;
  evidence: Record<string, unknown>;
}

interface SlashedCaller {
  accountId: bigint;
  /** What the caller paid this host within the window. */
  paid: bigint;
  refunded: bigint;
}

export interface SlashResult {
  slashId: string;
  earnings: bigint;
  bond: bigint;
  refunded: bigint;
  remainder: bigint;
  callers: SlashedCaller[];
}

/**
 * Slashes a host, in one database transaction: it is suspended (so nothing more can leave),
 * its immature earnings and its bond move into the refund pool, the pool pays back every
 * caller the host served within the maturity window (at least a day) in proportion to what
 * each paid it, never more than that, and what no caller is owed goes to the treasury. Each
 * movement is a balanced ledger transaction whose metadata carries the slash, its reason and
 * the evidence; the slash row keeps the case.
 */
export function slashHost(app: TrustServices, input: SlashInput): Promise<SlashResult>;
/**
 * `unlessSuspended`: no slash (undefined) when the host is suspended already, decided under the
 * host row's lock, so replicas that find the same proof at once slash it once.
 */
export function slashHost(
  app: TrustServices,
  input: SlashInput,
  options: { unlessSuspended: true },
): Promise<SlashResult | undefined>;
export async function slashHost(
  app: TrustServices,
  input: SlashInput,
  options: { unlessSuspended?: boolean } = {},
): Promise<SlashResult | undefined> {
  const database = app.database.db;
  const [known] = await database.select({ id: hosts.id }).from(hosts).where(eq(hosts.id, input.hostId));
  if (!known) throw new GatewayError("not_found", "host not found");
  // Settlements this process holds in memory must be on the books before they are refunded.
  await app.leases?.flush();
  const ids = await payoutAccountIds(database, input.hostId);
  const pool = await ensureAccount(database, refundPool.kind, refundPool.ref);
  const treasury = await ensureAccount(database, systemAccounts.treasury.kind, systemAccounts.treasury.ref);
  const slashId = randomUUID();
  const maturity = app.env.HOST_EARNINGS_MATURITY_SECONDS;
  const since = new Date(Date.now() - Math.max(maturity, minimumWindowSeconds) * 1000);
  const result = await database.transaction(async (tx) => {
    const [locked] = await tx
      .select({ status: hosts.status })
      .from(hosts)
      .where(eq(hosts.id, input.hostId))
      .for("update");
    if (options.unlessSuspended && locked?.status === "suspended") return undefined;
    await tx.update(hosts).set({ status: "suspended" }).where(eq(hosts.id, input.hostId));
    await tx
      .select({ id: accounts.id })
      .from(accounts)
      .where(inArray(accounts.id, [ids.provider, ids.bond, pool]))
      .for("update");
    const earned = (await getAccountBalance(tx, ids.provider)).balance;
    const immature = await immatureEarnings(tx, ids.provider, maturity);
    const earnings = immature < earned ? immature : earned;
    const bond = (await getAccountBalance(tx, ids.bond)).balance;
    const taken = earnings + bond;
    const evidence = {
      slash_id: slashId,
      host_id: input.hostId,
      reason: input.reason,
      evidence: input.evidence,
    };
    await postTransaction(tx, {
      kind: "host_slash",
      idempotencyKey: `slash:${slashId}`,
      metadata: { ...evidence, trigger: input.trigger, earnings: earnings.toString(), bond: bond.toString() },
      entries: [
        { accountId: ids.provider, amount: -earnings },
        { accountId: ids.bond, amount: -bond },
        { accountId: pool, amount: taken },
      ],
    });
    const served = await tx
      .select({
        accountId: usageRecords.accountId,
        paid: sql<string>`SUM(${usageRecords.costMicrounits})::text`,
      })
      .from(usageRecords)
      .innerJoin(accounts, eq(accounts.id, usageRecords.accountId))
      .where(
        and(
          eq(usageRecords.providerId, input.hostId),
          ne(usageRecords.route, "centralized"),
          gt(usageRecords.createdAt, since),
          inArray(accounts.kind, ["token", "wallet"]),
        ),
      )
      .groupBy(usageRecords.accountId)
      .orderBy(usageRecords.accountId);
    const paidTotal = served.reduce((sum, row) => sum + BigInt(row.paid), 0n);
    const callers: SlashedCaller[] = served.map((row) => {
      const paid = BigInt(row.paid);
      const share = paidTotal === 0n ? 0n : (taken * paid) / paidTotal;
      return { accountId: row.accountId, paid, refunded: share < paid ? share : paid };
    });
    const refunded = callers.reduce((sum, caller) => sum + caller.refunded, 0n);
    await postTransaction(tx, {
      kind: "host_slash_refund",
      idempotencyKey: `slash-refund:${slashId}`,
      metadata: {
        ...evidence,
        window_since: since.toISOString(),
        callers: callers.map((caller) => ({
          account_id: caller.accountId.toString(),
          paid: caller.paid.toString(),
          refunded: caller.refunded.toString(),
        })),
      },
      entries: [
        { accountId: pool, amount: -refunded },
        ...callers.map((caller) => ({ accountId: caller.accountId, amount: caller.refunded })),
      ],
    });
    const remainder = taken - refunded;
    await postTransaction(tx, {
      kind: "host_slash_remainder",
      idempotencyKey: `slash-remainder:${slashId}`,
      metadata: { ...evidence, note: "slashed money no caller was owed: kept by the operator" },
      entries: [
        { accountId: pool, amount: -remainder },
        { accountId: treasury, amount: remainder },
      ],
    });
    await tx.insert(hostSlashes).values({
      id: slashId,
      hostId: input.hostId,
      trigger: input.trigger,
      reason: input.reason.slice(0, 1000),
      evidence: input.evidence,
      earningsMicrounits: earnings,
      bondMicrounits: bond,
      refundedMicrounits: refunded,
      remainderMicrounits: remainder,
      callersRefunded: callers.filter((caller) => caller.refunded > 0n).length,
    });
    return { slashId, earnings, bond, refunded, remainder, callers };
  });
  // Out of routing at once, in this process; the others stop routing it at their next look-up.
  app.routing.registry.disconnect(input.hostId);
  if (!result) return undefined;
  log.warn("host slashed", {
    provider: input.hostId,
    trigger: input.trigger,
    reason: input.reason,
    refunded: result.refunded.toString(),
  });
  return result;
}
