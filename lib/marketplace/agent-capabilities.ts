import type { CapabilitiesMessage } from "@pod-gateway/contracts/agent-protocol";
import type { CatalogIndex } from "../catalog/catalog-index";
import { resolveModel } from "../catalog/resolve-model";
import { centralizedCap } from "../pricing/price-cap";
import type { MarketplaceOffer } from "./registry";

export interface CapabilitiesVerdict {
  offers: Array<Omit<MarketplaceOffer, "providerId">>;
  rejected: Array<{ model_id: string; reason: string }>;
  maxConcurrentTotal: number | undefined;
}

/**
 * Turns an agent's capabilities into offers. A model the catalog does not know, a price of
 * zero (the reference agent's "no price": dropped), or a price above the cheapest centralized
 * price on either axis is refused with the reason, which names the cap, so the operator can fix it.
 */
export function reviewCapabilities(catalog: CatalogIndex, message: CapabilitiesMessage): CapabilitiesVerdict {
  const offers: CapabilitiesVerdict["offers"] = [];
  const rejected: CapabilitiesVerdict["rejected"] = [];
  const seen = new Set<string>();
  for (const model of message.models) {
    const reject = (reason: string) => rejected.push({ model_id: model.model_id, reason });
    if (seen.has(model.model_id)) {
      reject("listed twice");
      continue;
    }
    seen.add(model.model_id);
    const input = BigInt(model.input_per_1m);
    const output = BigInt(model.output_per_1m);
    const requestPrice =
      model.request_price_microunits === undefined ? undefined : BigInt(model.request_price_microunits);
    const known = resolveModel(catalog, model.model_id);
    if (!known) {
      reject(`unknown model ${model.model_id}: list it under a catalog id (GET /v1/models)`);
      continue;
    }
    const cap = centralizedCap(catalog.pricesFor(known));
    if (requestPrice !== undefined) {
      const refusal = perRequestRefusal(known.id, { input, output, requestPrice }, cap);
      if (refusal) reject(refusal);
      else offers.push(offerOf(model, { inputPer1m: 0n, outputPer1m: 0n, requestPrice }));
      continue;
    }
    if (input === 0n || output === 0n) {
      reject("no price: set input_per_1m and output_per_1m (microunits per 1M tokens)");
      continue;
    }
    if (!cap) {
      reject(`${known.id} has no centralized price to cap it at, so it cannot be sold on the marketplace`);
      continue;
    }
    if (input > cap.inputPer1m || output > cap.outputPer1m) {
      reject(
        `price above the cap for ${known.id}: asked input ${input} / output ${output}, ` +
          `the cap (cheapest centralized price) is input ${cap.inputPer1m} / output ${cap.outputPer1m} microunits per 1M tokens`,
      );
      continue;
    }
    offers.push(offerOf(model, { inputPer1m: input, outputPer1m: output }));
  }
  return { offers, rejected, maxConcurrentTotal: message.limits?.max_concurrent_total };
}

type CapabilityModel = CapabilitiesMessage["models"][number];

const offerOf = (
  model: CapabilityModel,
  price: { inputPer1m: bigint; outputPer1m: bigint; requestPrice?: bigint },
): CapabilitiesVerdict["offers"][number] => ({
  modelId: model.model_id,
  dialect: model.format ?? "openai",
  ...price,
  maxConcurrent: model.max_concurrent,
});

/**
 * Why a per-request offer is refused, or undefined: it has no token prices beside it, is not
 * free, and is within the cheapest per-request centralized price (a per-token price cannot
 * cap it: see lib/pricing/price-cap.ts).
 */
function perRequestRefusal(
  modelId: string,
  price: { input: bigint; output: bigint; requestPrice: bigint },
  cap: ReturnType<typeof centralizedCap>,
): string | undefined {
  if (price.input !== 0n || price.output !== 0n)
    return "a per-request price has no token prices: set input_per_1m and output_per_1m to 0";
  if (price.requestPrice === 0n) return "no price: request_price_microunits is 0";
  if (cap?.requestPrice === undefined)
    return `${modelId} is not sold per request by any centralized provider, so a per-request price has nothing to be capped at`;
  if (price.requestPrice > cap.requestPrice)
    return `price above the cap for ${modelId}: asked ${price.requestPrice} per request, the cap (cheapest centralized price) is ${cap.requestPrice} microunits per request`;
  return undefined;
}
