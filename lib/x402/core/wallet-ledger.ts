import { and, eq } from "drizzle-orm";
import type { Executor } from "../../db/client";
import { accounts } from "../../db/schema";
import { ensureAccount } from "../../ledger/accounts";
import { postTransaction } from "../../ledger/post-transaction";

/**
 * x402 money in the double-entry ledger: each verified payment moves its value from the
 * outside world (one external account per network family and asset) to a `wallet` account keyed by the payer's
 * address. Requests are then held and charged against that wallet account exactly like a
 * prepaid token, so the surplus (payment minus actual cost) simply stays as its balance.
 */

/** The outside-world account a rail's payments come from: `x402-solana-usdc`, `x402-eip155-usdc`, ... */
export function x402ExternalRef(network: string, asset: string): string {
  return `x402-${network.split(":", 1)[0]}-${asset.toLowerCase()}`;
}

export function walletAccountId(executor: Executor, wallet: string): Promise<bigint> {
  return ensureAccount(executor, "wallet", wallet);
}

/** The wallet's account if it ever received credit; never creates one. */
export async function findWalletAccountId(executor: Executor, wallet: string): Promise<bigint | undefined> {
  const rows = await executor
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.kind, "wallet"), eq(accounts.ref, wallet)));
  return rows[0]?.id;
}

export interface WalletCreditInput {
  walletAccountId: bigint;
  /** The external account the value comes from (`x402ExternalRef`). */
  externalRef: string;
  creditedMicrounits: bigint;
  /** Unique per payment (`x402:<network>:<signature>`): the ledger's own replay guard. */
  idempotencyKey: string;
  metadata: Record<string, unknown>;
}

/** Posts the credit; false when this payment was already credited. Run inside a transaction. */
export async function creditWallet(executor: Executor, input: WalletCreditInput): Promise<boolean> {
  const externalId = await ensureAccount(executor, "external", input.externalRef);
  const posted = await postTransaction(executor, {
    kind: "x402_payment",
    idempotencyKey: input.idempotencyKey,
    metadata: input.metadata,
    entries: [
      { accountId: externalId, amount: -input.creditedMicrounits },
      { accountId: input.walletAccountId, amount: input.creditedMicrounits },
    ],
  });
  return posted.type === "posted";
}

export function paymentIdempotencyKey(network: string, signature: string): string {
  return `x402:${network}:${signature}`;
}
