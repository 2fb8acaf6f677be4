import { transactionUnless } from "../../db/rollback";
import { getAccountBalance } from "../../ledger/accounts";
import { placeHold } from "../../ledger/holds";
import type { PaymentProof } from "./payment-header";
import { networkFamily, type RailSet, type VerifiedPayment } from "./payment-rail";
import { consumeQuote, quoteNetworks } from "./quote-store";
import type { PaymentContext, Settlement } from "./settlement";
import { findWalletAccountId } from "./wallet-ledger";
import { balanceBelowCap, unsupportedNetwork, x402BadRequest, x402Messages } from "./x402-errors";

type BalanceProof = Extract<PaymentProof, { type: "balance" }>;

/**
 * A spend of surplus credit: no chain involved. The wallet proves control by signing
 * `usepod-x402-spend:<quote_id>`, so the proof is good for this one quote only; the checks
 * run in the reference service's order and with its messages (the quote's own checks follow
 * in `settlePayment`). Settling consumes the quote and holds its cap on the wallet.
 */
export async function verifyBalanceSpend(
  context: PaymentContext,
  rails: RailSet,
  proof: BalanceProof,
): Promise<VerifiedPayment> {
  const { quote } = context;
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
    rails.configured.find((candidate) =>
      family === undefined ? candidate.isWallet(payerWallet) : candidate.family === family,
    ) ?? rails.configured[0];
  if (!rail) throw unsupportedNetwork(rails.registered);
  if (rail.isWallet(payerWallet)) payerWallet = rail.canonicalWallet(payerWallet);
  const checked = await rail.verifyWalletProof({ quoteId: quote.id, payerWallet, proof: proof.proof });
  if (checked.type === "invalid") throw x402BadRequest(checked.message);
  const network =
    proof.network ??
    networks.find((candidate) => networkFamily(candidate) === rail.family) ??
    networks[0] ??
    "";
  return { type: "authorized", settle: () => spendBalance(context, payerWallet, network) };
}

async function spendBalance(
  context: PaymentContext,
  payerWallet: string,
  network: string,
): Promise<Settlement> {
  const { database, quote } = context;
  const walletId = await findWalletAccountId(database, payerWallet);
  if (walletId === undefined) throw balanceBelowCap(quote.capMicrounits, 0n);
  let available = 0n;
  const held = await transactionUnless(
    database,
    async (transaction, rollback: (reason: "quote_taken" | "below_cap") => never) => {
      if (!(await consumeQuote(transaction, quote.id, `balance:${payerWallet}`))) rollback("quote_taken");
      const hold = await placeHold(transaction, walletId, quote.capMicrounits, context.holdTtlSeconds);
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
    network,
    payerWallet,
    transaction: "",
    receivedAmount: 0n,
    creditedMicrounits: 0n,
    walletAccountId: walletId,
    holdId: held.value.holdId,
    availableAfter: held.value.availableAfter,
  };
}
