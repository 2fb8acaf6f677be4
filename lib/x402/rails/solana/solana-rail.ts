import { isAddress } from "@solana/kit";
import { verifyBalanceProof } from "../../../chains/solana/balance-proof";
import { log } from "../../../log";
import type { ChainPaymentProof, PaymentRail, RailDefinition } from "../../core/payment-rail";
import type { NewQuoteOption, QuoteOption, StoredQuote } from "../../core/quote-store";
import { x402BadRequest } from "../../core/x402-errors";
import { verifyExact } from "./exact-payment";
import { exactOptionFor, SOLANA_EXACT, SOLANA_NATIVE, solanaOption } from "./mechanisms";
import { verifyNative } from "./native-payment";
import { quoteAmounts } from "./quote-amounts";
import { reconcilePendingClaims } from "./reconcile-claims";
import { solanaAccepts } from "./solana-accepts";
import { buildSolanaServices, type SolanaRailDeps, type SolanaServices } from "./solana-services";

/** The Solana rail, with its services in reach (tests replace a part of them: a clock, a co-signer). */
export interface SolanaRail extends PaymentRail {
  services(): Promise<SolanaServices>;
  configure(changes: Partial<SolanaServices>): Promise<SolanaServices>;
}

const solanaRails = new WeakSet<PaymentRail>();

function isSolanaRail(rail: PaymentRail): rail is SolanaRail {
  return solanaRails.has(rail);
}

/** The Solana rail among a gateway's rails; throws when it is not configured. */
export function solanaRailOf(rails: readonly PaymentRail[]): SolanaRail {
  const rail = rails.find(isSolanaRail);
  if (!rail) throw new Error("this gateway has no Solana rail (X402_PAY_TO is not set)");
  return rail;
}

/** The rail's registration: on when X402_PAY_TO is set. */
export const solanaRailDefinition: RailDefinition = {
  family: "solana",
  label: "Solana",
  create({ env, database }) {
    const payTo = env.X402_PAY_TO;
    if (!payTo) return undefined;
    let pending: Promise<SolanaServices> | undefined;
    const services = (): Promise<SolanaServices> => {
      if (!pending) {
        const building = buildSolanaServices(env, payTo);
        pending = building;
        building.catch(() => {
          if (pending === building) pending = undefined;
        });
      }
      return pending;
    };
    const deps = {
      database,
      holdTtlSeconds: env.HOLD_TTL_SECONDS,
      requirePayerProof: env.X402_REQUIRE_PAYER_PROOF,
      services,
    };
    return createSolanaRail(deps, async (changes) => {
      const next = { ...(await services()), ...changes };
      pending = Promise.resolve(next);
      return next;
    });
  },
};

/**
 * The Solana rail: native USDC and SOL transfers the payer broadcasts, and standard `exact`
 * payments we co-sign as fee payer. Its services are looked up per call, so a test that
 * swaps a part of them (a clock, a co-signer) is seen at once.
 */
function createSolanaRail(deps: SolanaRailDeps, configure: SolanaRail["configure"]): SolanaRail {
  const rail: SolanaRail = {
    family: "solana",
    services: deps.services,
    configure,

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
      const native = { ...at, mechanism: SOLANA_NATIVE };
      const exact = { ...at, mechanism: SOLANA_EXACT };
      const options: NewQuoteOption[] = [
        { ...native, asset: "USDC", amount: amounts.capMicrounits, details: {} },
      ];
      const sol = amounts.sol;
      const rateDetail = sol ? { micro_usd_per_sol: sol.microUsdPerSol.toString() } : undefined;
      if (sol && rateDetail)
        options.push({ ...native, asset: "SOL", amount: sol.capLamports, details: rateDetail });
      const feePayer = services.cosigner?.feePayer;
      if (feePayer !== undefined) {
        const payer = { fee_payer: feePayer };
        options.push({ ...exact, asset: "USDC", amount: amounts.standardMicrounits, details: payer });
        if (sol && rateDetail) {
          options.push({
            ...exact,
            asset: "SOL",
            amount: sol.standardLamports,
            details: { ...payer, ...rateDetail },
          });
        }
      }
      return options;
    },

    async accepts(quote, options, resourceUrl) {
      const services = await deps.services();
      return solanaAccepts({
        quote,
        options,
        usdcMint: services.usdcMint,
        resourceUrl,
        maxTimeoutSeconds: services.quoteTtlSeconds,
      });
    },

    async optionFor(quote, proof) {
      if (!solanaOption(quote, SOLANA_NATIVE, "USDC")) {
        throw x402BadRequest("this x402 quote offers no Solana payment; pay one of its entries");
      }
      return proof.type === "native" ? nativeOption(quote, proof) : exactOption(quote, proof, deps);
    },

    verify(payment) {
      const { proof } = payment;
      return proof.type === "native" ? verifyNative(deps, payment, proof) : verifyExact(deps, payment, proof);
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
  solanaRails.add(rail);
  return rail;
}

function payableOn(quote: StoredQuote, network: string): void {
  const offered = solanaOption(quote, SOLANA_NATIVE, "USDC")?.network;
  if (network !== offered) throw x402BadRequest(`x402 quote is payable on ${offered}, not ${network}`);
}

function nativeOption(
  quote: StoredQuote,
  proof: Extract<ChainPaymentProof, { type: "native" }>,
): QuoteOption {
  if (proof.network !== "") payableOn(quote, proof.network);
  if (proof.asset !== "USDC" && proof.asset !== "SOL") throw x402BadRequest('asset must be "USDC" or "SOL"');
  const option = solanaOption(quote, SOLANA_NATIVE, proof.asset);
  if (!option)
    throw x402BadRequest("this x402 quote offers no SOL payment; pay in USDC or request a new quote");
  return option;
}

async function exactOption(
  quote: StoredQuote,
  proof: Extract<ChainPaymentProof, { type: "standard" }>,
  deps: SolanaRailDeps,
): Promise<QuoteOption> {
  // A quote without co-signed options was made by a gateway without a fee payer.
  if (!solanaOption(quote, SOLANA_EXACT, "USDC")) {
    throw x402BadRequest("this gateway does not co-sign x402 payments; pay with a self-broadcast transfer");
  }
  payableOn(quote, proof.network);
  const option = exactOptionFor(quote, proof.asset, (await deps.services()).usdcMint);
  if (!option) throw x402BadRequest(`x402 asset ${proof.asset} is not offered by this quote`);
  return option;
}
