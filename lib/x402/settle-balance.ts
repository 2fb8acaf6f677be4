import { transactionUnless } from "../db/rollback";
import { getAccountBalance } from "../ledger/accounts";
import { placeHold } from "../ledger/holds";
import type { PaymentProof } from "./payment-header";
import { unservableReason } from "./price-request";
import { consumeQuote, quoteNetworks } from "./quote-store";
import { networkFamily, type PaymentRail, type SettleContext } from "./rails/payment-rail";
import type { Settlement } from "./settlement";
import { findWalletAccountId } from "./wallet-ledger";
import { balanceBelowCap, x402BadRequest, x402Messages } from "./x402-errors";

type BalanceProof = Extract<PaymentProof, { type: "balance" }>;

/**
 * Spends surplus credit: no chain involved. The wallet proves control by signing
 * `usepod-x402-spend:<quote_id>`, so the proof is good for this one quote only; the checks
 * run in the reference service's order and with its messages.
 */
export async function settleBalance(
  context: SettleContext,
  rails: readonly PaymentRail[],
  proof: BalanceProof,
): Promise<Settlement> {
  const { quote } = context;
  const database = context.app.database.db;
  if (proof.payerWallet === undefined) throw x402BadRequest(x402Messages.balanceNeedsWallet);
  if (proof.proof === undefined) throw x402BadRequest(x402Messages.balanceNeedsProof);
  const networks = quoteNetworks(quote);
  if (proof.network !== undefined && !networks.includes(proof.network)) {
    throw x402BadRequest(`x402 quote is payable on ${networks.join(", ")}, not ${proof.network}`);
  }
  let payerWallet = proof.payerWallet;
  // The proof is checked by the family that owns the wallet's address form (Ed25519 or EIP-191).
  const family = proof.network === undefined ? undefined : networkFamily(proof.network);
  // An address no rail recognises is refused by the first rail, in its own words.
  const rail =
    rails.find((candidate) =>
      family === undefined ? candidate.isWallet(payerWallet) : candidate.family === family,
    ) ?? rails[0];
  if (!rail) throw x402BadRequest(x402Messages.unsupportedNetwork);
  if (rail.isWallet(payerWallet)) payerWallet = rail.canonicalWallet(payerWallet);
  const checked = await rail.verifyWalletProof({ quoteId: quote.id, payerWallet, proof: proof.proof });
  if (checked.type === "invalid") throw x402BadRequest(checked.message);
  if (new Date() > quote.expiresAt) throw x402BadRequest(x402Messages.quoteExpired);
  if (quote.consumedAt !== null) throw x402BadRequest(x402Messages.quoteSettled);
  // Nothing is spent yet: refuse now rather than consume the quote for a request no source can serve.
  const unservable = unservableReason(context.priced, quote.capMicrounits);
  if (unservable) throw unservable;

  const walletId = await findWalletAccountId(database, payerWallet);
  if (walletId === undefined) throw balanceBelowCap(quote.capMicrounits, 0n);
  let available = 0n;
  const held = await transactionUnless(
    database,
    async (transaction, rollback: (reason: "quote_taken" | "below_cap") => never) => {
      if (!(await consumeQuote(transaction, quote.id, `balance:${payerWallet}`))) rollback("quote_taken");
      const hold = await placeHold(
        transaction,
        walletId,
        quote.capMicrounits,
        context.app.env.HOLD_TTL_SECONDS,
      );
      if (hold.type === "held") return hold;
      available = (await getAccountBalance(transaction, walletId)).available;
      return rollback("below_cap");
    },
  );
  if (held.type === "rolled_back") {
    if (held.reason === "quote_taken") throw x402BadRequest(x402Messages.quoteSettled);
    throw balanceBelowCap(quote.capMicrounits, available);
  }
  return {
    scheme: "balance",
    quote,
    asset: "USDC",
    network:
      proof.network ??
      networks.find((network) => networkFamily(network) === rail.family) ??
      networks[0] ??
      "",
    payerWallet,
    transaction: "",
    receivedAmount: 0n,
    creditedMicrounits: 0n,
    walletAccountId: walletId,
    holdId: held.value.holdId,
    availableAfter: held.value.availableAfter,
  };
}
