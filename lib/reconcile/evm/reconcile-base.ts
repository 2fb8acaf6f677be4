import { sql } from "drizzle-orm";
import { type Address, type Hex, isHex, type PublicClient, parseEventLogs } from "viem";
import { eip3009Abi } from "../../chains/evm/eip3009";
import { evmChainOf } from "../../chains/evm/evm-chain";
import type { Executor } from "../../db/client";
import { queryRows } from "../../db/client";
import type { Env } from "../../env";
import type { Difference } from "../core/difference";

export interface BaseReceipts {
  /** Reads transaction receipts from the configured Base chain (BASE_RPC_URL). */
  client: Pick<PublicClient, "getTransactionReceipt">;
  /** The USDC contract whose Transfer logs count. */
  usdc: Address;
  /** X402_BASE_PAY_TO, when x402 on Base is on. */
  payTo?: string | undefined;
  /** BASE_DEPOSIT_ADDRESS, when deposits on Base are on. */
  depositAddress?: string | undefined;
}

/** What to compare on Base, from the environment; undefined when no Base rail is configured. */
export function baseReceiptsOf(env: Env): BaseReceipts | undefined {
  if (!(env.X402_BASE_PAY_TO || env.BASE_DEPOSIT_ADDRESS)) return undefined;
  const chain = evmChainOf(env);
  return {
    client: chain.publicClient,
    usdc: chain.tokenAddress,
    payTo: env.X402_BASE_PAY_TO,
    depositAddress: env.BASE_DEPOSIT_ADDRESS,
  };
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * USDC that reached `to` in this transaction, per its receipt's Transfer logs from the USDC
 * contract; 0 for a reverted transaction, null when the chain has no such transaction.
 */
async function arrived(receipts: BaseReceipts, hash: string | null, to: string): Promise<bigint | null> {
  if (!hash || !isHex(hash) || hash.length !== 66) return null;
  const receipt = await receipts.client.getTransactionReceipt({ hash: hash as Hex }).catch(() => null);
  if (!receipt) return null;
  if (receipt.status !== "success") return 0n;
  let value = 0n;
  for (const log of parseEventLogs({ abi: eip3009Abi, logs: receipt.logs, eventName: "Transfer" }))
    if (same(log.address, receipts.usdc) && same(log.args.to, to)) value += log.args.value;
  return value;
}

function compare(
  differences: Difference[],
  reference: string,
  source: bigint | null,
  booked: bigint,
  what: string,
  sourceName = "the chain",
): void {
  if (source === null) {
    differences.push({
      source: "base",
      reference,
      microunits: -booked,
      detail: `${what}: booked ${booked} but ${sourceName} has no such transaction`,
    });
  } else if (source !== booked) {
    differences.push({
      source: "base",
      reference,
      microunits: source - booked,
      detail: `${what}: ${sourceName} moved ${source}, the books say ${booked}`,
    });
  }
}

/**
 * Base receipts against the books, as for Solana: every deposit credited on Base (its
 * `base_deposits` row, its ledger credit, or both) is a transaction that brought that much USDC
 * to the deposit address, and its ledger credit is what the row says; every settled x402 payment
 * on Base brought what it recorded to the pay-to address, and its wallet credit is on the books.
 * A claim the chain does not back (no such transaction, a reverted one, less USDC) and a receipt
 * whose ledger row is missing are both reported, to the microunit.
 */
export async function reconcileBase(executor: Executor, receipts: BaseReceipts): Promise<Difference[]> {
  const differences: Difference[] = [];
  if (receipts.depositAddress) {
    const deposits = await queryRows<{
      key: string;
      hash: string | null;
      recorded: string | null;
      booked: string;
      has_row: boolean;
      has_ledger: boolean;
    }>(
      executor,
      sql`SELECT COALESCE('base-deposit:' || d.network || ':' || d.authorization_key, t.idempotency_key) AS key,
                 COALESCE(d.transaction_hash, t.metadata->>'transaction') AS hash,
                 d.amount_microunits::text AS recorded,
                 COALESCE(-SUM(e.amount) FILTER (WHERE a.kind = 'external'), 0)::text AS booked,
                 d.id IS NOT NULL AS has_row,
                 t.id IS NOT NULL AS has_ledger
          FROM (SELECT * FROM base_deposits WHERE status = 'credited') d
          FULL JOIN (SELECT * FROM ledger_transactions WHERE idempotency_key LIKE 'base-deposit:%') t
            ON t.idempotency_key = 'base-deposit:' || d.network || ':' || d.authorization_key
          LEFT JOIN ledger_entries e ON e.transaction_id = t.id
          LEFT JOIN accounts a ON a.id = e.account_id AND a.ref = 'base-usdc-deposits'
          GROUP BY d.id, d.network, d.authorization_key, d.transaction_hash, d.amount_microunits,
                   t.id, t.idempotency_key, t.metadata`,
    );
    for (const row of deposits) {
      const onChain = await arrived(receipts, row.hash, receipts.depositAddress);
      const reference = `${row.key} (${row.hash ?? "no transaction"})`;
      if (!row.has_ledger) {
        compare(differences, reference, onChain, 0n, "deposit received but never credited (no ledger row)");
        continue;
      }
      compare(
        differences,
        reference,
        onChain,
        BigInt(row.booked),
        row.has_row ? "deposit" : "deposit credited without a base_deposits row",
      );
    }
  }
  if (receipts.payTo) {
    const payments = await queryRows<{
      signature: string;
      network: string;
      hash: string | null;
      received: string | null;
      credited: string | null;
      booked: string | null;
    }>(
      executor,
      sql`SELECT p.signature, p.network, p.transaction_hash AS hash, p.received_amount::text AS received,
                 p.credited_microunits::text AS credited,
                 (SELECT -SUM(e.amount) FROM ledger_transactions t
                    JOIN ledger_entries e ON e.transaction_id = t.id
                    JOIN accounts a ON a.id = e.account_id AND a.kind = 'external'
                  WHERE t.idempotency_key = 'x402:' || p.network || ':' || p.signature)::text AS booked
          FROM x402_payments p
          WHERE p.status = 'settled' AND p.network LIKE 'eip155:%'`,
    );
    for (const payment of payments) {
      const reference = `${payment.signature} (${payment.hash ?? "no transaction"})`;
      compare(
        differences,
        reference,
        await arrived(receipts, payment.hash, receipts.payTo),
        BigInt(payment.received ?? "0"),
        "x402 payment",
      );
      compare(
        differences,
        reference,
        BigInt(payment.credited ?? "0"),
        BigInt(payment.booked ?? "0"),
        "x402 payment credit",
        "the payment record",
      );
    }
  }
  return differences;
}
