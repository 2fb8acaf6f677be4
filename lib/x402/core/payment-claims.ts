import { and, eq, sql } from "drizzle-orm";
import type { Executor } from "../../db/client";
import { x402Payments } from "../../db/schema";

export type PaymentClaim = typeof x402Payments.$inferSelect;

export interface ClaimInput {
  network: string;
  signature: string;
  quoteId: string;
  scheme: "native" | "standard";
  /** The ticker paid in (`USDC`, `SOL`). */
  asset: string;
  payerWallet: string;
}

export async function findClaim(
  executor: Executor,
  network: string,
  signature: string,
): Promise<PaymentClaim | undefined> {
  const rows = await executor
    .select()
    .from(x402Payments)
    .where(and(eq(x402Payments.network, network), eq(x402Payments.signature, signature)));
  return rows[0];
}

/**
 * Records a verified self-broadcast payment. Returns false when the signature is already
 * claimed: by this process or any other sharing the database, the unique index decides.
 */
export async function insertSettledClaim(
  executor: Executor,
  input: ClaimInput & { receivedAmount: bigint; creditedMicrounits: bigint },
): Promise<boolean> {
  const rows = await executor
    .insert(x402Payments)
    .values({ ...input, status: "settled" })
    .onConflictDoNothing({ target: [x402Payments.network, x402Payments.signature] })
    .returning({ id: x402Payments.id });
  return rows.length === 1;
}

/**
 * Records a co-signed transaction before it is broadcast, so a crash, a retry or a second
 * process finds the claim and reconciles through the chain instead of paying twice.
 */
export async function insertPendingClaim(
  executor: Executor,
  input: ClaimInput & { signedTransaction: string; sponsoredFeeLamports: bigint },
): Promise<PaymentClaim | undefined> {
  const rows = await executor
    .insert(x402Payments)
    .values({ ...input, status: "pending" })
    .onConflictDoNothing({ target: [x402Payments.network, x402Payments.signature] })
    .returning();
  return rows[0];
}

/** pending → settled, once: of concurrent finalizers exactly one gets `true`. */
export async function markClaimSettled(
  executor: Executor,
  id: bigint,
  amounts: { receivedAmount: bigint; creditedMicrounits: bigint },
): Promise<boolean> {
  const rows = await executor
    .update(x402Payments)
    .set({ ...amounts, status: "settled", signedTransaction: null, updatedAt: sql`now()` })
    .where(and(eq(x402Payments.id, id), eq(x402Payments.status, "pending")))
    .returning({ id: x402Payments.id });
  return rows.length === 1;
}

/** A co-signed transaction that landed and failed: final, the transfer never happened. */
export async function markClaimFailed(executor: Executor, id: bigint): Promise<void> {
  await executor
    .update(x402Payments)
    .set({ status: "failed", signedTransaction: null, updatedAt: sql`now()` })
    .where(and(eq(x402Payments.id, id), eq(x402Payments.status, "pending")));
}

/** A co-signed transaction that can never land (refused, or its blockhash expired unseen). */
export async function deletePendingClaim(executor: Executor, id: bigint): Promise<boolean> {
  const rows = await executor
    .delete(x402Payments)
    .where(and(eq(x402Payments.id, id), eq(x402Payments.status, "pending")))
    .returning({ id: x402Payments.id });
  return rows.length === 1;
}
