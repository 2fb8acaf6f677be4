import { isAddress } from "@solana/kit";
import { verifyBalanceProof } from "../../chains/solana/balance-proof";
import type { Database } from "../../db/client";
import { log } from "../../log";
import { solanaAccepts } from "../payment-required";
import { quoteAmounts } from "../quote-amounts";
import type { NewQuoteOption } from "../quote-store";
import { reconcilePendingClaims } from "../reconcile-claims";
import { verifyNative } from "../settle-native";
import { verifyStandard } from "../settle-standard";
import { SOLANA_EXACT_RAIL, SOLANA_NATIVE_RAIL, solanaTermsOf } from "../solana-terms";
import { x402BadRequest } from "../x402-errors";
import type { X402Services } from "../x402-services";
import type { PaymentRail } from "./payment-rail";

/**
 * The Solana rail: native USDC and SOL transfers the payer broadcasts, and standard `exact`
 * payments we co-sign as fee payer. Its services are looked up per call, so a test that
 * swaps a part of them (a clock, a co-signer) is seen at once.
 */
export function createSolanaRail(deps: {
  database: Database;
  holdTtlSeconds: number;
  services(): Promise<X402Services>;
}): PaymentRail {
  return {
    family: "solana",

    async quote(capMicrounits) {
      const services = await deps.services();
      const rate = await services.priceSource.getPrice().then(
        (price) => price.microUsdPerSol,
        (error: unknown) => {
          log.warn("x402: no SOL/USD price, quoting USDC only", { error });
          return undefined;
        },
      );
      const amounts = quoteAmounts(capMicrounits, rate);
      const at = { network: services.network, payTo: services.payTo };
      const options: NewQuoteOption[] = [
        { ...at, rail: SOLANA_NATIVE_RAIL, asset: "USDC", amount: amounts.capMicrounits, details: {} },
      ];
      const sol = amounts.sol;
      if (sol) {
        const rateDetail = { micro_usd_per_sol: sol.microUsdPerSol.toString() };
        options.push({
          ...at,
          rail: SOLANA_NATIVE_RAIL,
          asset: "SOL",
          amount: sol.capLamports,
          details: rateDetail,
        });
      }
      const feePayer = services.cosigner?.feePayer;
      if (feePayer !== undefined) {
        options.push({
          ...at,
          rail: SOLANA_EXACT_RAIL,
          asset: "USDC",
          amount: amounts.standardMicrounits,
          details: { fee_payer: feePayer },
        });
        if (sol) {
          options.push({
            ...at,
            rail: SOLANA_EXACT_RAIL,
            asset: "SOL",
            amount: sol.standardLamports,
            details: { fee_payer: feePayer, micro_usd_per_sol: sol.microUsdPerSol.toString() },
          });
        }
      }
      return options;
    },

    async accepts(quote, _options, resourceUrl) {
      const terms = solanaTermsOf(quote);
      if (!terms) return [];
      const services = await deps.services();
      return solanaAccepts({
        quote,
        terms,
        usdcMint: services.usdcMint,
        resourceUrl,
        maxTimeoutSeconds: services.quoteTtlSeconds,
      });
    },

    async verify(context, proof) {
      const services = await deps.services();
      const terms = solanaTermsOf(context.quote);
      if (!terms) throw x402BadRequest("this x402 quote offers no Solana payment; pay one of its entries");
      const solana = { ...context, services, terms };
      return proof.type === "native" ? verifyNative(solana, proof) : verifyStandard(solana, proof);
    },

    async verifyWalletProof(input) {
      const checked = await verifyBalanceProof(input);
      return checked.type === "valid" ? checked : { type: "invalid", message: checked.message };
    },

    isWallet: (wallet) => isAddress(wallet),
    canonicalWallet: (wallet) => wallet,

    async reconcile() {
      return reconcilePendingClaims(deps, await deps.services());
    },
  };
}
