import { desc, eq, sql } from "drizzle-orm";
import type { Database, Executor } from "../../db/client";
import { queryRows } from "../../db/client";
import { type ChainDeposit, chainDeposits } from "../../db/schema";
import { ensureAccount, getAccountBalance, systemAccounts } from "../../ledger/accounts";
import { postTransaction } from "../../ledger/post-transaction";
import { postTokenCredit } from "../../tokens/credit-token";
import type { TokenRecord } from "../../tokens/find-token";

/** The deposits an operator still has to decide about, newest first. */
export async function listUnmatchedDeposits(executor: Executor, limit = 200): Promise<ChainDeposit[]> {
  return executor
    .select()
    .from(chainDeposits)
    .where(eq(chainDeposits.status, "unmatched"))
    .orderBy(desc(chainDeposits.createdAt))
    .limit(limit);
}

/** What the suspense ledger account holds: the sum of the unmatched USDC deposits. */
export async function suspenseBalance(executor: Executor): Promise<bigint> {
  const id = await ensureAccount(
    executor,
    systemAccounts.depositSuspense.kind,
    systemAccounts.depositSuspense.ref,
  );
  return (await getAccountBalance(executor, id)).balance;
}

export type ResolveResult =
  | { type: "resolved"; deposit: ChainDeposit }
  | { type: "not_found" }
  /** Already assigned or refunded (or never unmatched); `status` says which. */
  | { type: "not_unmatched"; status: string }
  /** Another asset or an amount of zero: no USDC sits in suspense, so there is nothing to assign. */
  | { type: "nothing_to_assign"; reason: string | null };

async function lockDeposit(executor: Executor, signature: string): Promise<ChainDeposit | undefined> {
  const rows = await queryRows<{ signature: string }>(
    executor,
    sql`SELECT signature FROM chain_deposits WHERE signature = ${signature} FOR UPDATE`,
  );
  if (!rows[0]) return undefined;
  const [row] = await executor.select().from(chainDeposits).where(eq(chainDeposits.signature, signature));
  return row;
}

/**
 * Credits an unmatched USDC deposit to a token: its amount moves from suspense to the token's
 * balance in the same transaction that marks it `assigned`, once (the row lock and the
 * idempotency key keep a repeated or concurrent call from crediting twice).
 */
export async function assignDeposit(
  database: Database,
  input: { signature: string; token: TokenRecord; note: string },
): Promise<ResolveResult> {
  return database.transaction(async (transaction) => {
    const row = await lockDeposit(transaction, input.signature);
    if (!row) return { type: "not_found" };
    if (row.status !== "unmatched") return { type: "not_unmatched", status: row.status };
    if (row.suspenseMicrounits <= 0n) return { type: "nothing_to_assign", reason: row.reason };
    await postTokenCredit(transaction, {
      tokenId: input.token.id,
      accountId: input.token.accountId,
      amount: row.suspenseMicrounits,
      kind: "solana_deposit_assigned",
      source: systemAccounts.depositSuspense,
      idempotencyKey: `solana:assign:${row.signature}`,
      metadata: { reason: input.note, signature: row.signature, unmatched_reason: row.reason },
    });
    const [updated] = await transaction
      .update(chainDeposits)
      .set({
        status: "assigned",
        tokenId: input.token.id,
        suspenseMicrounits: 0n,
        resolutionNote: input.note,
        resolvedAt: new Date(),
      })
      .where(eq(chainDeposits.signature, row.signature))
      .returning();
    return updated ? { type: "resolved", deposit: updated } : { type: "not_found" };
  });
}

/**
 * Records that the operator refunds (or has refunded) an unmatched deposit to its sender. USDC
 * in suspense leaves the books to the `solana-deposit-refunds` external account; another asset
 * or a zero amount was never on them, so only the record changes. The transfer back is sent
 * by the operator from the deposit wallet; `refundSignature` notes it when known.
 */
export async function refundDeposit(
  database: Database,
  input: { signature: string; note: string; refundSignature: string | undefined },
): Promise<ResolveResult> {
  return database.transaction(async (transaction) => {
    const row = await lockDeposit(transaction, input.signature);
    if (!row) return { type: "not_found" };
    if (row.status !== "unmatched") return { type: "not_unmatched", status: row.status };
    if (row.suspenseMicrounits > 0n) {
      const [suspense, refunds] = await Promise.all([
        ensureAccount(transaction, systemAccounts.depositSuspense.kind, systemAccounts.depositSuspense.ref),
        ensureAccount(transaction, systemAccounts.depositRefunds.kind, systemAccounts.depositRefunds.ref),
      ]);
      await postTransaction(transaction, {
        kind: "solana_deposit_refund",
        idempotencyKey: `solana:refund:${row.signature}`,
        metadata: {
          reason: input.note,
          signature: row.signature,
          refund_signature: input.refundSignature ?? null,
          sender: row.sender,
        },
        entries: [
          { accountId: suspense, amount: -row.suspenseMicrounits },
          { accountId: refunds, amount: row.suspenseMicrounits },
        ],
      });
    }
    const [updated] = await transaction
      .update(chainDeposits)
      .set({
        status: "refunded",
        suspenseMicrounits: 0n,
        refundSignature: input.refundSignature ?? null,
        resolutionNote: input.note,
        resolvedAt: new Date(),
      })
      .where(eq(chainDeposits.signature, row.signature))
      .returning();
    return updated ? { type: "resolved", deposit: updated } : { type: "not_found" };
  });
}
