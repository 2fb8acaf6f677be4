import type { Address } from "@solana/kit";
import { sql } from "drizzle-orm";
import { deriveAssociatedTokenAddress } from "../../chains/solana/associated-token-address";
import { defaultSolanaRpcUrl, usdcMintForNetwork } from "../../chains/solana/constants";
import { parseFeePayerSecret } from "../../chains/solana/fee-payer-key";
import type { Executor } from "../../db/client";
import { queryRows } from "../../db/client";
import { type DepositChainReader, rpcDepositReader } from "../../deposits/solana/deposit-watcher";
import { readDepositTransaction, tokenAccountDelta } from "../../deposits/solana/read-deposit-transaction";
import type { Env } from "../../env";
import type { Difference } from "../core/difference";

export interface SolanaReceipts {
  reader: DepositChainReader;
  usdcMint: string;
  /** SOLANA_DEPOSIT_ADDRESS, when deposits are on. */
  depositOwner?: string | undefined;
  /** X402_PAY_TO, when x402 on Solana is on. */
  payTo?: string | undefined;
  /** The payout wallet (from HOST_PAYOUT_SECRET), when host payouts are on. */
  payoutWallet?: string | undefined;
}

/** What to compare on Solana, from the environment; undefined when no Solana rail is configured. */
export async function solanaReceiptsOf(env: Env): Promise<SolanaReceipts | undefined> {
  if (!(env.SOLANA_RPC_URL || env.SOLANA_DEPOSIT_ADDRESS || env.X402_PAY_TO || env.HOST_PAYOUT_SECRET))
    return undefined;
  return {
    reader: rpcDepositReader(env.SOLANA_RPC_URL ?? defaultSolanaRpcUrl(env.SOLANA_NETWORK), "confirmed"),
    usdcMint: env.X402_USDC_MINT ?? usdcMintForNetwork(env.SOLANA_NETWORK),
    depositOwner: env.SOLANA_DEPOSIT_ADDRESS,
    payTo: env.X402_PAY_TO,
    payoutWallet: env.HOST_PAYOUT_SECRET ? await payoutWalletOf(env.HOST_PAYOUT_SECRET) : undefined,
  };
}

/** The payout wallet's address, from its secret (what pays host withdrawals and bond returns). */
async function payoutWalletOf(secret: string): Promise<string> {
  return (await parseFeePayerSecret(secret)).address;
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
 * Calls `visit` for every successful transaction on `tokenAccount` whose signature is not in
 * `known`, newest first, within the bounded pass. A history that cannot be read is reported:
 * what cannot be read is not reconciled, and is never taken as nothing.
 */
async function unknownSignatures(
  differences: Difference[],
  receipts: SolanaReceipts,
  tokenAccount: string,
  known: ReadonlySet<string>,
  what: string,
  visit: (signature: string) => Promise<void>,
): Promise<void> {
  let before: string | undefined;
  for (let read = 0; read < maxSignatures; ) {
    const page = await receipts.reader
      .signaturesFor(tokenAccount, { limit: 1000, ...(before ? { before } : {}) })
      .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    if (page instanceof Error) {
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
      await visit(info.signature);
    }
    read += page.length;
    before = page.at(-1)?.signature;
    if (page.length < 1000 || !before) break;
  }
}

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
  await unknownSignatures(differences, receipts, tokenAccount, known, what, async (signature) => {
    const amount = await arrived(receipts, signature, owner);
    if (amount === null)
      differences.push({
        source: "solana",
        reference: signature,
        microunits: 0n,
        detail: `${what}: listed on the account, but the transaction could not be read`,
      });
    else if (amount > 0n)
      differences.push({
        source: "solana",
        reference: signature,
        microunits: amount,
        detail: `${what}: the chain brought ${amount} that no booking explains`,
      });
  });
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
 * confirmed payout brought its amount to its destination and was booked for it; every settled
 * USDC x402 payment brought what it recorded to the pay-to wallet. And back: every USDC arrival
 * at the deposit or pay-to wallet is a booked deposit or a recorded x402 payment, and every USDC
 * departure from the payout wallet is a known payout.
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
  await reconcilePayouts(differences, executor, receipts);
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

/**
 * Payouts against the chain and the books, in every direction: each confirmed payout row is a
 * transaction that brought its amount to its destination and is booked out of the payouts in
 * flight for exactly that amount; each booked payout has its confirmed row; whatever the books
 * still hold in flight is what the unfinished payouts add up to; and every USDC that left the
 * payout wallet went in a payout the books know (one paid twice, or paid and then forgotten,
 * shows up here).
 */
async function reconcilePayouts(
  differences: Difference[],
  executor: Executor,
  receipts: SolanaReceipts,
): Promise<void> {
  const payouts = await queryRows<{
    id: string;
    signature: string | null;
    destination: string | null;
    amount: string | null;
    booked: string;
    has_row: boolean;
    has_ledger: boolean;
  }>(
    executor,
    sql`SELECT COALESCE(p.id::text, substring(t.idempotency_key FROM 18)) AS id,
               COALESCE(p.signature, t.metadata->>'signature') AS signature,
               p.destination, p.amount::text AS amount,
               COALESCE(SUM(e.amount) FILTER (WHERE a.id IS NOT NULL), 0)::text AS booked,
               p.id IS NOT NULL AS has_row,
               t.id IS NOT NULL AS has_ledger
        FROM (SELECT * FROM host_payouts WHERE status = 'confirmed') p
        FULL JOIN (SELECT * FROM ledger_transactions WHERE idempotency_key LIKE 'payout-confirmed:%') t
          ON t.idempotency_key = 'payout-confirmed:' || p.id::text
        LEFT JOIN ledger_entries e ON e.transaction_id = t.id
        LEFT JOIN accounts a ON a.id = e.account_id AND a.kind = 'external' AND a.ref = 'solana-payouts'
        GROUP BY p.id, p.signature, p.destination, p.amount, t.id, t.idempotency_key, t.metadata`,
  );
  const payoutWallet = receipts.payoutWallet
    ? await deriveAssociatedTokenAddress(receipts.payoutWallet as Address, receipts.usdcMint as Address)
    : undefined;
  /** What the transaction took out of the payout wallet; null when the chain has no such transaction. */
  const departed = async (signature: string | null): Promise<bigint | null> => {
    if (!signature || !payoutWallet) return null;
    const transaction = await receipts.reader.transaction(signature).catch(() => null);
    return transaction ? -tokenAccountDelta(transaction, payoutWallet, receipts.usdcMint) : null;
  };
  for (const payout of payouts) {
    const reference = `payout ${payout.id} (${payout.signature ?? "no signature"})`;
    const booked = BigInt(payout.booked);
    if (!payout.has_row) {
      // The books say paid and the payout table does not: a row removed, or faked as unpaid.
      differences.push({
        source: "ledger",
        reference,
        microunits: -booked,
        detail: `payout of ${booked} booked as paid without a confirmed host_payouts row`,
      });
      compare(differences, reference, await departed(payout.signature), booked, "payout booked as paid");
      continue;
    }
    const amount = BigInt(payout.amount ?? "0");
    const onChain =
      payout.signature && payout.destination
        ? await arrived(receipts, payout.signature, payout.destination)
        : null;
    compare(differences, reference, onChain, amount, "payout");
    if (!payout.has_ledger || booked !== amount)
      differences.push({
        source: "ledger",
        reference,
        microunits: amount - booked,
        detail: payout.has_ledger
          ? `payout of ${amount} booked out of the payouts in flight as ${booked}`
          : `payout of ${amount} confirmed but never booked out of the payouts in flight (no ledger row)`,
      });
  }

  const [inFlight] = await queryRows<{ held: string; pending: string }>(
    executor,
    sql`SELECT COALESCE((SELECT balance FROM accounts WHERE kind = 'payout' AND ref = 'in-flight'), 0)::text AS held,
               COALESCE((SELECT SUM(amount) FROM host_payouts
                         WHERE status IN ('awaiting_approval', 'requested', 'broadcast')), 0)::text AS pending`,
  );
  const held = BigInt(inFlight?.held ?? "0");
  const pending = BigInt(inFlight?.pending ?? "0");
  if (held !== pending)
    differences.push({
      source: "ledger",
      reference: "payout:in-flight",
      microunits: pending - held,
      detail: `the payouts in flight hold ${held}; the unfinished payouts add up to ${pending}`,
    });

  if (!payoutWallet) return;
  // A payout still in flight may already have landed: the worker books it on its next pass.
  const known = await queryRows<{ signature: string }>(
    executor,
    sql`SELECT signature FROM host_payouts WHERE status IN ('broadcast', 'confirmed') AND signature IS NOT NULL`,
  );
  await unknownSignatures(
    differences,
    receipts,
    payoutWallet,
    new Set([...known.map((row) => row.signature), ...payouts.flatMap((row) => row.signature ?? [])]),
    "unbooked departure from the payout wallet",
    async (signature) => {
      const amount = await departed(signature);
      if (amount === null)
        differences.push({
          source: "solana",
          reference: signature,
          microunits: 0n,
          detail:
            "unbooked departure from the payout wallet: listed on the account, but the transaction could not be read",
        });
      else if (amount > 0n)
        differences.push({
          source: "solana",
          reference: signature,
          microunits: amount,
          detail: `unbooked departure from the payout wallet: the chain paid out ${amount} that no payout explains`,
        });
    },
  );
}
