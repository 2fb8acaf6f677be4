import { and, eq, inArray, isNull, lte } from "drizzle-orm";
import { hostPayouts, hosts } from "../db/schema";
import { getAccountBalance } from "../ledger/accounts";
import { postTransaction } from "../ledger/post-transaction";
import { log } from "../log";
import { payoutAccountIds } from "../payouts/core/payout-accounts";
import type { Services } from "../services";

/**
 * Starts retirement: the host leaves routing at once (only `active` hosts are routed) and
 * its in-flight jobs finish; `finishRetirements` then closes the agent, marks it `retired`
 * and starts the bond cooldown. Returns false for a host that is already retiring or retired, or suspended.
 */
export async function startRetirement(app: Pick<Services, "database">, hostId: string): Promise<boolean> {
  const updated = await app.database.db
    .update(hosts)
    .set({ status: "retiring" })
    // A suspended host cannot retire: retirement ends in the bond's return, which suspension freezes.
    .where(and(eq(hosts.id, hostId), inArray(hosts.status, ["pending", "active"])))
    .returning({ id: hosts.id });
  return updated.length > 0;
}

/** Retiring hosts with no job in flight become retired; their cooldown starts now. */
/** The part of the marketplace registry a retirement reads: a host's jobs in flight, and its removal. */
interface ConnectedHosts {
  inFlight(hostId: string): number;
  disconnect(hostId: string): void;
}

export async function finishRetirements(
  app: Services & { routing: { registry: ConnectedHosts } },
): Promise<number> {
  const { registry } = app.routing;
  const retiring = await app.database.db
    .select({ id: hosts.id })
    .from(hosts)
    .where(eq(hosts.status, "retiring"));
  let finished = 0;
  for (const host of retiring) {
    if (registry.inFlight(host.id) > 0) continue;
    registry.disconnect(host.id);
    const now = new Date();
    await app.database.db
      .update(hosts)
      .set({
        status: "retired",
        retiredAt: now,
        bondReturnAfter: new Date(now.getTime() + app.env.HOST_BOND_COOLDOWN_SECONDS * 1000),
      })
      .where(and(eq(hosts.id, host.id), eq(hosts.status, "retiring")));
    log.info("host retired", { provider: host.id });
    finished += 1;
  }
  return finished;
}

/**
 * After the cooldown, the bond held for a retired host is queued as a payout to its wallet
 * (the payout worker sends it). A host with no bond on the books (activated by an admin)
 * is simply marked done.
 */
export async function returnDueBonds(app: Services): Promise<number> {
  const database = app.database.db;
  const due = await database
    .select()
    .from(hosts)
    .where(
      and(eq(hosts.status, "retired"), isNull(hosts.bondReturnedAt), lte(hosts.bondReturnAfter, new Date())),
    );
  for (const host of due) {
    const ids = await payoutAccountIds(database, host.id);
    await database.transaction(async (tx) => {
      const { balance } = await getAccountBalance(tx, ids.bond);
      const [marked] = await tx
        .update(hosts)
        .set({ bondReturnedAt: new Date() })
        .where(and(eq(hosts.id, host.id), isNull(hosts.bondReturnedAt)))
        .returning({ id: hosts.id });
      if (!marked || balance <= 0n) return;
      const [payout] = await tx
        .insert(hostPayouts)
        .values({
          hostId: host.id,
          kind: "bond_return",
          amount: balance,
          destination: host.wallet,
          idempotencyKey: `bond-return:${host.id}`,
          status: "requested",
        })
        .returning({ id: hostPayouts.id });
      await postTransaction(tx, {
        kind: "host_bond_return_requested",
        idempotencyKey: `bond-return:${host.id}`,
        metadata: { host_id: host.id, payout_id: payout?.id },
        entries: [
          { accountId: ids.bond, amount: -balance },
          { accountId: ids.inFlight, amount: balance },
        ],
      });
    });
  }
  return due.length;
}
