import type { ModelEndpointsResponse } from "@pod-gateway/contracts/model-endpoints";
import { resolveModel } from "../../catalog/resolve-model";
import { GatewayError } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import type { Candidate } from "../../providers/candidate";
import { loadCandidatePools } from "../../routing/candidate-pools";
import { rankCandidates } from "../../routing/rank-candidates";
import { performanceKey } from "../../routing/source-performance";
import type { ApiCall } from "../route-definition";
import { measuredView } from "./measured-view";

/** Microunits per 1M tokens → USD per token, as OpenRouter writes it (`"0.00000015"`). */
function usdPerToken(microunitsPer1m: bigint): string {
  const text = (Number(microunitsPer1m) / 1e12).toFixed(12);
  return text.replace(/\.?0+$/, "") || "0";
}

/**
 * GET /v1/models/:model/endpoints – every source that could serve the model now (centralized
 * providers this gateway holds keys for, marketplace hosts with a free slot, key relays), in
 * the default try order of `auto`, each with its price, limits, health and the figures the
 * gateway measured on real traffic. OpenRouter's shape where it fits.
 */
export async function listModelEndpoints({ app, params }: ApiCall<"none">): Promise<Response> {
  const model = resolveModel(app.catalog, params.model ?? "");
  // No close-id search here: the route is public, and that search costs milliseconds of CPU.
  if (!model)
    throw new GatewayError("model_not_found", `model not found: ${params.model ?? ""}`, { param: "model" });
  const pools = await loadCandidatePools(app, model);
  const { health, performance } = app.routing;
  const endpoint = (candidate: Candidate): ModelEndpointsResponse["data"]["endpoints"][number] => {
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
  const body: ModelEndpointsResponse = {
    data: {
      id: model.id,
      name: model.name ?? model.id,
      context_length: model.contextWindow,
      endpoints: [...rankCandidates(pools.market), ...rankCandidates(pools.centralized)].map(endpoint),
    },
  };
  return jsonResponse(body, 200, { "cache-control": "public, max-age=5" });
}
