import { evmChainOf } from "../chains/evm/evm-chain";
import { defaultSolanaRpcUrl, usdcMintForNetwork } from "../chains/solana/constants";
import { parseFeePayerSecret } from "../chains/solana/fee-payer-key";
import { rpcDepositReader } from "../deposits/deposit-watcher";
import { cardSettings } from "../funding/card-settings";
import type { LedgerServices } from "../ledger/ledger-services";
import { verifyLedger } from "../ledger/verify-ledger";
import type { Services } from "../services";
import type { Difference } from "./difference";
import { reconcileBase } from "./reconcile-base";
import { reconcileSolana } from "./reconcile-solana";
import { reconcileStripe } from "./reconcile-stripe";

export interface ReconcileReport {
  differences: Difference[];
  /** Sources compared, and those left out with the reason (not configured). */
  checked: string[];
  skipped: string[];
}

/**
 * Matches the ledger against its sources: the books themselves (every transaction balanced,
 * every balance and `held` equal to its entries and holds), Stripe (card credits, refunds and
 * disputes per session), Solana (deposit, payout and x402 payment receipts, and every USDC
 * departure from the payout wallet) and Base (deposit and x402 payment receipts). Every
 * unexplained difference is reported to the microunit; an empty list means the books agree.
 */
export async function reconcile(app: Services & Pick<LedgerServices, "leases">): Promise<ReconcileReport> {
  await app.leases?.flush(10_000);
  const db = app.database.db;
  const report: ReconcileReport = { differences: [], checked: ["ledger"], skipped: [] };
  for (const problem of await verifyLedger(db))
    report.differences.push({
      source: "ledger",
      reference: problem.ref,
      microunits: 0n,
      detail: `${problem.kind}: ${problem.detail}`,
    });

  const card = cardSettings(app.env);
  if (card.enabled) {
    report.differences.push(...(await reconcileStripe(db, card.stripe)));
    report.checked.push("stripe");
  } else report.skipped.push(`stripe: ${card.reason}`);

  const env = app.env;
  if (env.SOLANA_RPC_URL || env.SOLANA_DEPOSIT_ADDRESS || env.X402_PAY_TO || env.HOST_PAYOUT_SECRET) {
    report.differences.push(
      ...(await reconcileSolana(db, {
        reader: rpcDepositReader(env.SOLANA_RPC_URL ?? defaultSolanaRpcUrl(env.SOLANA_NETWORK), "confirmed"),
        usdcMint: env.X402_USDC_MINT ?? usdcMintForNetwork(env.SOLANA_NETWORK),
        depositOwner: env.SOLANA_DEPOSIT_ADDRESS,
        payTo: env.X402_PAY_TO,
        payoutWallet: env.HOST_PAYOUT_SECRET ? await payoutWalletOf(env.HOST_PAYOUT_SECRET) : undefined,
      })),
    );
    report.checked.push("solana");
  } else report.skipped.push("solana: no Solana rail is configured");
  if (env.X402_BASE_PAY_TO || env.BASE_DEPOSIT_ADDRESS) {
    const chain = evmChainOf(env);
    report.differences.push(
      ...(await reconcileBase(db, {
        client: chain.publicClient,
        usdc: chain.tokenAddress,
        payTo: env.X402_BASE_PAY_TO,
        depositAddress: env.BASE_DEPOSIT_ADDRESS,
      })),
    );
    report.checked.push("base");
  } else report.skipped.push("base: no Base rail is configured");
  return report;
}

/** The payout wallet's address, from its secret (what pays host withdrawals and bond returns). */
async function payoutWalletOf(secret: string): Promise<string> {
  return (await parseFeePayerSecret(secret)).address;
}

/** The report as JSON (amounts as decimal strings, as every money field the gateway exposes). */
export function reportJson(report: ReconcileReport) {
  return {
    reconciled: report.differences.length === 0,
    unexplained_microunits: report.differences
      .reduce((total, one) => total + (one.microunits < 0n ? -one.microunits : one.microunits), 0n)
      .toString(),
    differences: report.differences.map((one) => ({ ...one, microunits: one.microunits.toString() })),
    checked: report.checked,
    skipped: report.skipped,
  };
}
