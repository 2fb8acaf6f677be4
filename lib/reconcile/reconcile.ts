import { cardSettings } from "../funding/card-settings";
import type { LedgerServices } from "../ledger/ledger-services";
import { readUpstreamExcess } from "../ledger/upstream-excess";
import { verifyLedger } from "../ledger/verify-ledger";
import type { Services } from "../services";
import type { Difference } from "./core/difference";
import { reconcileCredits } from "./core/reconcile-credits";
import type { ReconcileReport } from "./core/reconcile-report";
import { baseReceiptsOf, reconcileBase } from "./evm/reconcile-base";
import { reconcileSolana, solanaReceiptsOf } from "./solana/reconcile-solana";
import { reconcileStripe } from "./stripe/reconcile-stripe";
import { stripeToLedger } from "./stripe/stripe-to-ledger";

/**
 * Matches the ledger against its sources: the books themselves (every transaction balanced,
 * every balance and `held` equal to its entries and holds), every credit to a token against
 * its external record, Stripe both ways (card credits, refunds and disputes per session and
 * auto top-up charge; every charge and refund Stripe lists is one of the gateway's payments), Solana (deposit, payout and x402 payment receipts, and every USDC
 * departure from the payout wallet) and Base (deposit and x402 payment receipts). Every
 * unexplained difference is reported to the microunit; an empty list means the books agree. A
 * source that cannot be read is named in `unreadable`, and proves nothing. Beside them, the
 * upstream excess the ledger booked (explained: the operator's cost beyond what it billed).
 */
export async function reconcile(app: Services & Pick<LedgerServices, "leases">): Promise<ReconcileReport> {
  await app.leases?.flush(10_000);
  const db = app.database.db;
  const report: ReconcileReport = {
    differences: [],
    checked: ["ledger"],
    skipped: [],
    unreadable: [],
    upstreamExcess: await readUpstreamExcess(db),
  };
  for (const problem of await verifyLedger(db))
    report.differences.push({
      source: "ledger",
      reference: problem.ref,
      microunits: 0n,
      detail: `${problem.kind}: ${problem.detail}`,
    });

  await compare(report, "credits", () => reconcileCredits(db));

  const card = cardSettings(app.env);
  if (card.enabled)
    await compare(report, "stripe", async () => [
      ...(await reconcileStripe(db, card.stripe)),
      ...(await stripeToLedger(db, card.stripe)),
    ]);
  else report.skipped.push(`stripe: ${card.reason}`);

  const solana = await solanaReceiptsOf(app.env);
  if (solana) await compare(report, "solana", () => reconcileSolana(db, solana));
  else report.skipped.push("solana: no Solana rail is configured");
  const base = baseReceiptsOf(app.env);
  if (base) await compare(report, "base", () => reconcileBase(db, base));
  else report.skipped.push("base: no Base rail is configured");
  return report;
}

/**
 * One source compared, or named as unreadable with the reason (a source that is down proves
 * nothing either way: the report says so instead of the run dying with a stack trace).
 */
async function compare(
  report: ReconcileReport,
  source: string,
  differencesOf: () => Promise<Difference[]>,
): Promise<void> {
  try {
    report.differences.push(...(await differencesOf()));
    report.checked.push(source);
  } catch (error) {
    report.unreadable.push({ source, reason: error instanceof Error ? error.message : String(error) });
  }
}
