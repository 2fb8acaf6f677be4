import type { Address } from "@solana/kit";
import { sql } from "drizzle-orm";
import { deriveAssociatedTokenAddress } from "../chains/solana/associated-token-address";
import type { Executor } from "../db/client";
import { queryRows } from "../db/client";
import type { DepositChainReader } from "../deposits/deposit-watcher";
import { readDepositTransaction } from "../deposits/read-deposit-transaction";
import type { Difference } from "./difference";

export interface SolanaReceipts {
  reader: DepositChainReader;
  usdcMint: string;
  /** SOLANA_DEPOSIT_ADDRESS, when deposits are on. */
  depositOwner?: string | undefined;
  /** X402_PAY_TO, when x402 on Solana is on. */
  payTo?: string | undefined;
}

/** USDC that reached `owner`'s USDC account in this transaction, per the validator's balances; null if not found. */
async function arrived(receipts: SolanaReceipts, signature: string, owner: string): Promise<bigint | null> {
  const transaction = await receipts.reader.transaction(signature).catch(() => null);
  if (!transaction) return null;
  const tokenAccount = await deriveAssociatedTokenAddress(owner as Address, receipts.usdcMint as Address);
  const reading = readDepositTransaction(transaction, { owner, tokenAccount, usdcMint: receipts.usdcMint });
  return reading.type === "arrival" && reading.asset === "usdc" ? reading.amount : 0n;
}

/** Signatures read per account at most: a bounded pass (the RPC's page is 1,000). */
const maxSignatures = 20_000;

/**
 * The other direction: USDC that reached `owner`'s USDC account in a transaction the books do
 * not know (a stranger's transfer, or one the watcher missed). Only the unknown signatures are
 * read; each arrival is reported as money held that no ledger entry explains.
 */
async function unbookedArrivals(
  differences: Difference[],
  receipts: SolanaReceipts,
  owner: string,
  known: ReadonlySet<string>,
  what: string,
): Promise<void> {
  const tokenAccount = await deriveAssociatedTokenAddress(owner as Address, receipts.usdcMint as Address);
  let before: string | undefined;
  for (let read = 0; read < maxSignatures; ) {
    const page = await receipts.reader
      .signaturesFor(tokenAccount, { limit: 1000, ...(before ? { before } : {}) })
      .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    if (page instanceof Error) {
      // What cannot be read is not reconciled: said, never taken as nothing.
      differences.push({
        source: "solana",
        reference: tokenAccount,
        microunits: 0n,
        detail: `${what}: the account's history could not be read (${page.message.slice(0, 200)})`,
      });
      return;
    }
    for (const info of page) {
      if (known.has(info.signature) || (info.err !== null && info.err !== undefined)) continue;
      const amount = await arrived(receipts, info.signature, owner);
      if (amount === null)
        differences.push({
          source: "solana",
          reference: info.signature,
          microunits: 0n,
          detail: `${what}: listed on the account, but the transaction could not be read`,
        });
      else if (amount > 0n)
        differences.push({
          source: "solana",
          reference: info.signature,
          microunits: amount,
          detail: `${what}: the chain brought ${amount} that no booking explains`,
        });
    }
    read += page.length;
    before = page.at(-1)?.signature;
    if (page.length < 1000 || !before) break;
  }
}

function compare(
  differences: Difference[],
  reference: string,
  onChain: bigint | null,
  booked: bigint,
  what: string,
): void {
  if (onChain === null) {
    differences.push({
      source: "solana",
      reference,
      microunits: -booked,
      detail: `${what}: booked ${booked} but the chain has no such transaction`,
    });
  } else if (onChain !== booked) {
    differences.push({
      source: "solana",
      reference,
      microunits: onChain - booked,
      detail: `${what}: the chain moved ${onChain}, the books say ${booked}`,
    });
  }
}

/**
 * Chain receipts against the books: every deposit the ledger booked (credited, bonded or in
 * suspense) is a transaction that brought that much USDC to the deposit wallet; every
 * confirmed payout brought its amount to its destination; every settled USDC x402 payment
 * brought what it recorded to the pay-to wallet. And back: every USDC arrival at the deposit
 * or pay-to wallet is a booked deposit or a recorded x402 payment.
 */
export async function reconcileSolana(executor: Executor, receipts: SolanaReceipts): Promise<Difference[]> {
  const differences: Difference[] = [];
  const deposits = await queryRows<{ signature: string | null; booked: string; recorded: boolean }>(
    executor,
    sql`SELECT COALESCE(d.signature, substring(t.idempotency_key FROM 16)) AS signature,
               COALESCE(-SUM(e.amount) FILTER (WHERE a.kind = 'external'), 0)::text AS booked,
               d.signature IS NOT NULL AS recorded
        FROM chain_deposits d
        FULL JOIN ledger_transactions t ON t.idempotency_key = 'solana:deposit:' || d.signature
        LEFT JOIN ledger_entries e ON e.transaction_id = t.id
        LEFT JOIN accounts a ON a.id = e.account_id AND a.ref = 'solana-usdc-deposits'
        WHERE d.signature IS NOT NULL OR t.idempotency_key LIKE 'solana:deposit:%'
        GROUP BY d.signature, t.idempotency_key`,
  );
  if (receipts.depositOwner) {
    const booked = new Set(deposits.map((row) => row.signature ?? ""));
    await unbookedArrivals(
      differences,
      receipts,
      receipts.depositOwner,
      booked,
      "unbooked arrival at the deposit wallet",
    );
    for (const row of deposits) {
      const signature = row.signature ?? "";
      const onChain = await arrived(receipts, signature, receipts.depositOwner);
      compare(
        differences,
        signature,
        onChain,
        BigInt(row.booked),
        row.recorded ? "deposit" : "deposit booked without a chain_deposits row",
      );
    }
  }
  const payouts = await queryRows<{ id: string; signature: string; destination: string; amount: string }>(
    executor,
    sql`SELECT id::text AS id, signature, destination, amount::text AS amount FROM host_payouts
        WHERE status = 'confirmed' AND signature IS NOT NULL`,
  );
  for (const payout of payouts)
    compare(
      differences,
      `payout ${payout.id} (${payout.signature})`,
      await arrived(receipts, payout.signature, payout.destination),
      BigInt(payout.amount),
      "payout",
    );
  if (receipts.payTo) {
    const payments = await queryRows<{ signature: string; received: string | null }>(
      executor,
      sql`SELECT signature, received_amount::text AS received FROM x402_payments
          WHERE status = 'settled' AND network LIKE 'solana:%' AND asset = 'USDC'`,
    );
    const recorded = await queryRows<{ signature: string }>(
      executor,
      sql`SELECT signature FROM x402_payments WHERE signature IS NOT NULL AND network LIKE 'solana:%'`,
    );
    await unbookedArrivals(
      differences,
      receipts,
      receipts.payTo,
      new Set(recorded.map((row) => row.signature)),
      "unbooked arrival at the x402 pay-to wallet",
    );
    for (const payment of payments)
      compare(
        differences,
        payment.signature,
        await arrived(receipts, payment.signature, receipts.payTo),
        BigInt(payment.received ?? "0"),
        "x402 payment",
      );
  }
  return differences;
}
