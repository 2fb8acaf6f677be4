import { and, eq, inArray, ne, or } from "drizzle-orm";
import type { Database } from "../../db/client";
import { type HostPayout, hostPayouts, hosts } from "../../db/schema";
import { postTransaction } from "../../ledger/post-transaction";
import { log } from "../../log";
import type { Services } from "../../services";
import { payoutAccountIds } from "./payout-accounts";

/**
 * A chain family's payout wallet, as the worker uses it: sign a transfer (nothing is sent, so its
 * signature can be recorded first), then send those bytes and follow them to an outcome.
 */
export interface PayoutRail {
  sign(transfer: { destination: string; amount: bigint }): Promise<{ signature: string; wireBase64: string }>;
  send(signedTransaction: string, options: { timeoutMs: number }): Promise<PayoutOutcome>;
}

/** What one send learnt: final (`confirmed`, `failed`, `expired`: sign again) or not yet known. */
type PayoutOutcome =
  | { type: "failed"; error: string }
  | { type: "confirmed" | "expired" | "rejected" | "pending" };

async function setStatus(database: Database, payout: HostPayout, from: string, changes: Partial<HostPayout>) {
  const updated = await database
    .update(hostPayouts)
    .set({ ...changes, updatedAt: new Date() })
    .where(and(eq(hostPayouts.id, payout.id), eq(hostPayouts.status, from)))
    .returning();
  return updated[0];
}

/** The chain confirmed the transfer: the money leaves the books. */
function settleConfirmed(database: Database, payout: HostPayout): Promise<void> {
  return settleBroadcast(
    database,
    payout,
    { status: "confirmed", confirmedAt: new Date() },
    { kind: payout.kind },
    (ids) => ids.external,
  );
}

/** The transfer failed on-chain: the amount goes back where it came from. */
function settleFailed(database: Database, payout: HostPayout, error: string): Promise<void> {
  return settleBroadcast(database, payout, { status: "failed", error }, { error }, (ids) =>
    payout.kind === "bond_return" ? ids.bond : ids.provider,
  );
}

/**
 * A broadcast payout's end, at most once: its status leaves `broadcast` and its amount leaves
 * the in-flight account for `destination` in one transaction. A payout another pass has
 * already settled changes nothing.
 */
async function settleBroadcast(
  database: Database,
  payout: HostPayout,
  end: { status: "confirmed" | "failed"; confirmedAt?: Date; error?: string },
  detail: Record<string, unknown>,
  destination: (ids: Awaited<ReturnType<typeof payoutAccountIds>>) => bigint,
): Promise<void> {
  const ids = await payoutAccountIds(database, payout.hostId);
  await database.transaction(async (tx) => {
    const [row] = await tx
      .update(hostPayouts)
      .set({ ...end, updatedAt: new Date() })
      .where(and(eq(hostPayouts.id, payout.id), eq(hostPayouts.status, "broadcast")))
      .returning();
    if (!row) return;
    await postTransaction(tx, {
      kind: `host_payout_${end.status}`,
      idempotencyKey: `payout-${end.status}:${payout.id}`,
      metadata: { payout_id: payout.id, signature: payout.signature, ...detail },
      entries: [
        { accountId: ids.inFlight, amount: -payout.amount },
        { accountId: destination(ids), amount: payout.amount },
      ],
    });
  });
}

/**
 * One pass of the payout worker. A `requested` payout is signed and its signature and bytes
 * are recorded (status `broadcast`) before the first send, so a crash can only leave a known
 * transaction behind. A `broadcast` payout is re-sent as the same bytes and followed until it
 * is confirmed, failed, or provably expired; only an expired one is signed again.
 */
export async function runPayouts(
  app: Services & { payoutRail(): Promise<PayoutRail | undefined> },
  options: { timeoutMs?: number } = {},
): Promise<number> {
  const rail = await app.payoutRail();
  if (!rail) return 0;
  const database = app.database.db;
  // A suspended host's payouts wait (frozen); one already broadcast is followed to its end.
  const due = (
    await database
      .select({ payout: hostPayouts })
      .from(hostPayouts)
      .innerJoin(hosts, eq(hosts.id, hostPayouts.hostId))
      .where(
        and(
          inArray(hostPayouts.status, ["requested", "broadcast"]),
          or(ne(hosts.status, "suspended"), eq(hostPayouts.status, "broadcast")),
        ),
      )
      .orderBy(hostPayouts.createdAt)
      .limit(20)
  ).map((row) => row.payout);
  let finished = 0;
  for (let payout of due) {
    try {
      if (payout.status === "requested") {
        const signed = await rail.sign({ destination: payout.destination, amount: payout.amount });
        const claimed = await setStatus(database, payout, "requested", {
          status: "broadcast",
          signature: signed.signature,
          signedTransaction: signed.wireBase64,
          attempts: payout.attempts + 1,
        });
        if (!claimed) continue;
        payout = claimed;
      }
      if (!payout.signedTransaction) continue;
      const result = await rail.send(payout.signedTransaction, {
        timeoutMs: options.timeoutMs ?? 20_000,
      });
      if (result.type === "confirmed") {
        await settleConfirmed(database, payout);
        finished += 1;
      } else if (result.type === "failed") {
        await settleFailed(database, payout, result.error);
        finished += 1;
      } else if (result.type === "expired") {
        // It can never land: sign a fresh transfer on the next pass.
        await setStatus(database, payout, "broadcast", {
          status: "requested",
          signature: null,
          signedTransaction: null,
        });
      }
    } catch (error) {
      log.warn("payout attempt failed; retried on the next pass", { payout: payout.id, error });
    }
  }
  return finished;
}
