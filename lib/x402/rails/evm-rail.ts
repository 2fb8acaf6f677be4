import { getAddress, isAddress } from "viem";
import { verifyEvmBalanceProof } from "../../chains/evm/balance-proof";
import { log } from "../../log";
import type { EvmServices } from "../evm-services";
import { CAP_MODE, type PaymentRequirementsEntry, quoteBinding, quoteDescription } from "../payment-required";
import { STANDARD_MINIMUM_MICROUNITS } from "../quote-amounts";
import { EVM_EXACT_RAIL, verifyEvm } from "../settle-evm";
import { x402BadRequest } from "../x402-errors";
import { balanceSpendMessage, type PaymentRail } from "./payment-rail";

/**
 * The EVM rail (Base): USDC through the standard `exact` scheme, an EIP-3009
 * transferWithAuthorization the payer signs and a facilitator submits (in-process with our
 * settler key, or an external one). We pay the gas, so the amount is floored at one cent
 * like Solana's co-signed entries; anything above the actual cost is surplus credit.
 */
export function createEvmRail(services: EvmServices): PaymentRail {
  return {
    family: "eip155",

    async quote(capMicrounits) {
      // A chain we cannot read must not take the Solana entries down with it.
      const token = await services.tokenDomain().catch((error: unknown) => {
        log.warn("x402: the Base USDC contract is unreachable; quoting without Base", { error });
        return undefined;
      });
      if (!token) return [];
      let amount = capMicrounits;
      if (amount < STANDARD_MINIMUM_MICROUNITS) amount = STANDARD_MINIMUM_MICROUNITS;
      return [
        {
          rail: EVM_EXACT_RAIL,
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
        .filter((option) => option.rail === EVM_EXACT_RAIL)
        .map(
          (option): PaymentRequirementsEntry => ({
            ...quoteBinding(quote),
            scheme: "exact",
            network: option.network,
            pay_to: option.payTo,
            asset: option.details.contract ?? services.tokenAddress,
            amount_microunits: Number(option.amount),
            mode: CAP_MODE,
            amount: option.amount.toString(),
            maxAmountRequired: option.amount.toString(),
            payTo: option.payTo,
            maxTimeoutSeconds: services.maxTimeoutSeconds,
            resource: resourceUrl,
            description: quoteDescription(quote),
            mimeType: "application/json",
            extra: { name: option.details.name, version: option.details.version, quote_id: quote.id },
          }),
        );
    },

    async verify(context, proof) {
      const option = context.quote.options.find((candidate) => candidate.rail === EVM_EXACT_RAIL);
      if (!option) throw x402BadRequest("this x402 quote offers no Base payment; pay one of its entries");
      if (proof.type !== "standard") {
        throw x402BadRequest(
          "Base x402 payments use the standard exact scheme (an x402Version 2 payload with an EIP-3009 authorization)",
        );
      }
      return verifyEvm({ ...context, services, option }, proof);
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
