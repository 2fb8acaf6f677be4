import { and, eq, gte, inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { accounts, type Host, type HostPayout, hostPayouts, hosts } from "../../db/schema";
import type { Env } from "../../env";
import { GatewayError } from "../../errors/gateway-error";
import { postTransaction } from "../../ledger/post-transaction";
import { formatUsdc } from "../../relays/usdc-amount";
import { immatureEarnings } from "./immature-earnings";
import { payoutAccountIds } from "./payout-accounts";

/** An amount as a person reads it in an error: "5 USDC". */
const usdc = (microunits: bigint) => `${formatUsdc(microunits)} USDC`;

/** A maturity period as a person reads it: "7 days", "12 hours", "90 seconds". */
function period(seconds: number): string {
  if (seconds % 86_400 === 0 && seconds > 0) return `${seconds / 86_400} day${seconds === 86_400 ? "" : "s"}`;
  if (seconds % 3_600 === 0 && seconds > 0) return `${seconds / 3_600} hour${seconds === 3_600 ? "" : "s"}`;
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}

function suspended(): GatewayError {
  return new GatewayError(
    "forbidden",
    "forbidden: this host is suspended; its earnings and bond are frozen while the operator reviews it",
  );
}

export interface WithdrawalInput {
  amount: bigint;
  destination: string;
  idempotencyKey: string;
}

const dayMs = 24 * 3600 * 1000;
const reviewWindowMs = 30 * dayMs;

/**
 * Takes a withdrawal out of the host's balance and queues it for the payout worker, in one
 * transaction with the host's account row locked: concurrent requests are serialised, the
 * balance constraint forbids going below zero, and a repeated idempotency key returns the
 * first payout instead of a second one (409 when the amount or destination differ).
 */
export async function requestWithdrawal(
  database: Database,
  env: Env,
  host: Host,
  input: WithdrawalInput,
): Promise<{ payout: HostPayout; replayed: boolean }> {
  if (host.status === "suspended") throw suspended();
  if (input.amount < env.HOST_WITHDRAW_MIN_MICROUNITS) {
    throw new GatewayError(
      "bad_request",
      `the minimum withdrawal is ${usdc(env.HOST_WITHDRAW_MIN_MICROUNITS)}; ${usdc(input.amount)} was asked`,
      { param: "amount_usdc" },
    );
  }
  const ids = await payoutAccountIds(database, host.id);
  return database.transaction(async (tx) => {
    // The host row is locked too: a suspension or slash that commits first is seen here.
    const [current] = await tx
      .select({ status: hosts.status })
      .from(hosts)
      .where(eq(hosts.id, host.id))
      .for("update");
    if (current?.status === "suspended") throw suspended();
    const locked = await tx
      .select({ balance: accounts.balance })
      .from(accounts)
      .where(eq(accounts.id, ids.provider))
      .for("update");
    const existing = await tx
      .select()
      .from(hostPayouts)
      .where(and(eq(hostPayouts.hostId, host.id), eq(hostPayouts.idempotencyKey, input.idempotencyKey)));
    const first = existing[0];
    if (first) {
      // The same key for another payment is a client bug; answering with the first payout would hide it.
      if (first.amount !== input.amount || first.destination !== input.destination)
        throw new GatewayError(
          "conflict",
          `Idempotency-Key ${JSON.stringify(input.idempotencyKey)} was already used for a withdrawal of ${usdc(first.amount)} to ${first.destination}; use a new key for a different withdrawal`,
        );
      return { payout: first, replayed: true };
    }
    const balance = locked[0]?.balance ?? 0n;
    const immature = await immatureEarnings(tx, ids.provider, env.HOST_EARNINGS_MATURITY_SECONDS);
    const matured = balance - (immature < balance ? immature : balance);
    if (input.amount > matured) {
      throw new GatewayError(
        "insufficient_balance",
        `${usdc(matured)} can be withdrawn now and ${usdc(input.amount)} was asked` +
          (matured < balance
            ? ` (${usdc(balance - matured)} more is maturing: earnings become withdrawable ${period(env.HOST_EARNINGS_MATURITY_SECONDS)} after they were earned)`
            : ""),
      );
    }
    const since = new Date(Date.now() - dayMs);
    const [today] = await tx
      .select({ total: sql<string>`COALESCE(SUM(${hostPayouts.amount}), 0)` })
      .from(hostPayouts)
      .where(
        and(
          eq(hostPayouts.hostId, host.id),
          eq(hostPayouts.kind, "withdrawal"),
          gte(hostPayouts.createdAt, since),
          inArray(hostPayouts.status, ["awaiting_approval", "requested", "broadcast", "confirmed"]),
        ),
      );
    const used = BigInt(today?.total ?? "0");
    if (used + input.amount > env.HOST_WITHDRAW_DAILY_CAP_MICROUNITS) {
      throw new GatewayError(
        "rate_limited",
        `the daily withdrawal cap is ${usdc(env.HOST_WITHDRAW_DAILY_CAP_MICROUNITS)}: ${usdc(env.HOST_WITHDRAW_DAILY_CAP_MICROUNITS - used)} is left for the next 24 hours and ${usdc(input.amount)} was asked`,
      );
    }
    const young = Date.now() - host.enrolledAt.getTime() < reviewWindowMs;
    const status =
      young && input.amount > env.HOST_WITHDRAW_REVIEW_MICROUNITS ? "awaiting_approval" : "requested";
    const [payout] = await tx
      .insert(hostPayouts)
      .values({
        hostId: host.id,
        kind: "withdrawal",
        amount: input.amount,
        destination: input.destination,
        idempotencyKey: input.idempotencyKey,
        status,
      })
      .returning();
    if (!payout) throw new Error("payout insert returned nothing");
    await postTransaction(tx, {
      kind: "host_withdrawal_requested",
      idempotencyKey: `payout-request:${payout.id}`,
      metadata: { payout_id: payout.id, host_id: host.id, destination: input.destination },
      entries: [
        { accountId: ids.provider, amount: -input.amount },
        { accountId: ids.inFlight, amount: input.amount },
      ],
    });
    return { payout, replayed: false };
  });
}
