import type { ModelEndpoint } from "@pod-gateway/contracts/model-endpoints";
import type { CatalogModel } from "../catalog/models";
import type { Candidate } from "../providers/candidate";
import { loadCandidatePools } from "./candidate-pools";
import { measuredView } from "./measured-view";
import { rankCandidates } from "./rank-candidates";
import type { RoutingServices } from "./routing-state";
import type { CandidatePools } from "./select-candidates";
import { performanceKey } from "./source-performance";

/** Microunits per 1M tokens → USD per token, as OpenRouter writes it (`"0.00000015"`). */
function usdPerToken(microunitsPer1m: bigint): string {
  const text = (Number(microunitsPer1m) / 1e12).toFixed(12);
  return text.replace(/\.?0+$/, "") || "0";
}

/**
 * Every source that could serve `model` now (marketplace hosts with a free slot and key relays,
 * then the centralized providers this gateway holds keys for), each in the default try order of
 * its kind, with its price, limits, health and the figures the gateway measured on real traffic.
 * The one reading of them: `GET /v1/models/{id}/endpoints`, `/v1/marketplace/models` and the
 * operator console's catalog show these same values.
 */
export async function modelEndpoints(
  app: RoutingServices,
  model: CatalogModel,
  loaded?: CandidatePools,
): Promise<ModelEndpoint[]> {
  const pools = loaded ?? (await loadCandidatePools(app, model));
  const { health, performance } = app.routing;
  const endpoint = (candidate: Candidate): ModelEndpoint => {
    const figures = performance.figures(performanceKey(candidate.providerId, model.id));
    return {
      name: `${candidate.providerId} | ${model.id}`,
      provider_name: candidate.providerId,
      tag: candidate.providerId,
      route: candidate.route,
      context_length: model.contextWindow,
      max_completion_tokens: model.maxOutputTokens,
      quantization: candidate.quantization ?? null,
      pricing: {
        prompt: usdPerToken(candidate.price.inputPer1m),
        completion: usdPerToken(candidate.price.outputPer1m),
        request: usdPerToken((candidate.price.requestPrice ?? 0n) * 1_000_000n),
      },
      input_per_1m: Number(candidate.price.inputPer1m),
      output_per_1m: Number(candidate.price.outputPer1m),
      status: health.isDemoted(candidate.providerId) ? -1 : 0,
      uptime_last_30m:
        figures.measured && figures.successRate !== undefined
          ? Number((figures.successRate * 100).toFixed(2))
          : null,
      announced_tokens_per_second: candidate.announcedTokensPerSecond ?? null,
      performance: measuredView(figures),
    };
  };
  return [...rankCandidates(pools.market), ...rankCandidates(pools.centralized)].map(endpoint);
}
