import { getAddress, isAddress } from "viem";
import { verifyEvmBalanceProof } from "../../../chains/evm/balance-proof";
import { log } from "../../../log";
import { balanceSpendMessage, type PaymentRail, type RailDefinition } from "../../core/payment-rail";
import { exactEntry } from "../../core/payment-required";
import { SPONSORED_MINIMUM_MICROUNITS } from "../../core/quote-floors";
import { x402BadRequest } from "../../core/x402-errors";
import { buildEvmServices, type EvmRailDeps } from "./evm-services";
import { EVM_EXACT, verifyEvm } from "./exact-payment";

/** The rail's registration: on with X402_BASE_PAY_TO and a way to settle (our settler key or a facilitator). */
export const evmRailDefinition: RailDefinition = {
  family: "eip155",
  label: "Base",
  create({ env, database }) {
    const services = buildEvmServices(env);
    return services && createEvmRail({ database, holdTtlSeconds: env.HOLD_TTL_SECONDS, services });
  },
};

/**
 * The EVM rail (Base): USDC through the standard `exact` scheme, an EIP-3009
 * transferWithAuthorization the payer signs and a facilitator submits (in-process with our
 * settler key, or an external one). We pay the gas, so the amount is floored at one cent
 * like Solana's co-signed entries; anything above the actual cost is surplus credit.
 */
function createEvmRail(deps: EvmRailDeps): PaymentRail {
  const { services } = deps;
  return {
    family: "eip155",

    async quote(capMicrounits) {
      // A chain we cannot read must not take the other rails' entries down with it.
      const token = await services.tokenDomain().catch((error: unknown) => {
        log.warn("x402: the Base USDC contract is unreachable; quoting without Base", { error });
        return undefined;
      });
      if (!token) return [];
      let amount = capMicrounits;
      if (amount < SPONSORED_MINIMUM_MICROUNITS) amount = SPONSORED_MINIMUM_MICROUNITS;
      return [
        {
          mechanism: EVM_EXACT,
          network: services.network,
          asset: "USDC",
          payTo: services.payTo,
          amount,
          details: { contract: token.address, name: token.name, version: token.version },
        },
      ];
    },

    async accepts(quote, options, resourceUrl) {
      return options
        .filter((option) => option.mechanism === EVM_EXACT)
        .map((option) =>
          exactEntry(quote, {
            network: option.network,
            payTo: option.payTo,
            asset: option.details.contract ?? services.tokenAddress,
            amount: option.amount,
            maxTimeoutSeconds: services.maxTimeoutSeconds,
            resourceUrl,
            extra: { name: option.details.name, version: option.details.version },
          }),
        );
    },

    async optionFor(quote, proof) {
      const option = quote.options.find((candidate) => candidate.mechanism === EVM_EXACT);
      if (!option) throw x402BadRequest("this x402 quote offers no Base payment; pay one of its entries");
      if (proof.type !== "standard") {
        throw x402BadRequest(
          "Base x402 payments use the standard exact scheme (an x402Version 2 payload with an EIP-3009 authorization)",
        );
      }
      if (proof.network !== option.network) {
        throw x402BadRequest(`x402 quote is payable on ${option.network}, not ${proof.network}`);
      }
      const token = await services.tokenDomain();
      if (proof.asset.toLowerCase() !== token.address.toLowerCase()) {
        throw x402BadRequest(
          `x402 asset ${proof.asset} is not offered by this quote; pay USDC ${token.address}`,
        );
      }
      return option;
    },

    async verify(payment) {
      const { proof } = payment;
      // optionFor let only standard proofs through.
      if (proof.type !== "standard") throw x402BadRequest("Base x402 payments use the standard exact scheme");
      return verifyEvm(deps, payment, proof);
    },

    verifyWalletProof(input) {
      return verifyEvmBalanceProof({
        message: balanceSpendMessage(input.quoteId),
        payerWallet: input.payerWallet,
        proof: input.proof,
      });
    },

    isWallet: (wallet) => isAddress(wallet, { strict: false }),
    canonicalWallet: (wallet) => getAddress(wallet),

    // Pending Base claims (a process that died mid-settlement) are left for an operator: the
    // claim row keeps the authorization and the transaction hash.
    reconcile: async () => 0,
  };
}
