import type { BaseOptions, DisabledOption, FundingOptions } from "@pod-gateway/contracts/dashboard-api";
import { MIN_BASE_DEPOSIT_MICROUNITS } from "../../deposits/evm/base-deposit-errors";
import { depositInstructions, solanaDepositSettings } from "../../deposits/solana/deposit-config";
import { describeFee, quoteCard } from "../../funding/card-fee";
import { cardSettings } from "../../funding/card-settings";
import { jsonResponse } from "../../http/responses";
import type { ApiServices } from "../api-services";
import type { ApiCall } from "../route-definition";

/**
 * GET /proxy/<token>/funding – every way this token can be funded on this gateway, with what
 * the dashboard needs to offer it: card limits and fee, the Solana deposit to build, the
 * Base deposit's chain (the wallet signs what GET …/fund/base/typed-data hands out).
 */
export async function getFundingOptions(call: ApiCall<"token">): Promise<Response> {
  const { app, principal: record } = call;
  const card = cardSettings(app.env);
  const presets = card.enabled ? card.presetsUsd : [];
  const deposits = solanaDepositSettings(app.env);
  const options: FundingOptions = {
    card: {
      enabled: card.enabled,
      reason: card.enabled ? null : card.reason,
      min_usd: card.minUsd,
      max_usd: card.maxUsd,
      presets_usd: presets,
      fee: {
        mode: card.fee.mode,
        percent_bps: card.fee.percentBps,
        fixed_cents: card.fee.fixedCents,
        description: describeFee(card.fee),
      },
      quotes: presets.map((usd) => {
        const quote = quoteCard(card.fee, usd * 100);
        return { credit_usd: usd, fee_usd: quote.feeCents / 100, total_usd: quote.totalCents / 100 };
      }),
      publishable_key: card.enabled ? card.publishableKey : null,
    },
    solana: deposits.enabled
      ? { ...(await depositInstructions(deposits, record.depositCode)), reason: null }
      : { enabled: false, reason: deposits.reason },
    base: baseOptions(call.app),
  };
  return jsonResponse(options, 200, { "cache-control": "no-store" });
}

function baseOptions(app: ApiServices): BaseOptions | DisabledOption {
  const base = app.baseDeposits();
  if (!base.enabled) return { enabled: false, reason: base.reason };
  return {
    enabled: true,
    reason: null,
    network: base.chain.network,
    chain_id: base.chain.chainId,
    usdc: base.chain.tokenAddress,
    usdc_decimals: 6,
    deposit_address: base.depositAddress,
    min_microunits: Number(MIN_BASE_DEPOSIT_MICROUNITS),
  };
}
