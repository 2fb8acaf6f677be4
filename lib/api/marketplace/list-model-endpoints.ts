import type { ModelEndpointsResponse } from "@pod-gateway/contracts/model-endpoints";
import { resolveModel } from "../../catalog/resolve-model";
import { GatewayError } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import { modelEndpoints } from "../../routing/model-endpoints";
import type { ApiCall } from "../route-definition";

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
  const body: ModelEndpointsResponse = {
    data: {
      id: model.id,
      name: model.name ?? model.id,
      context_length: model.contextWindow,
      endpoints: await modelEndpoints(app, model),
    },
  };
  return jsonResponse(body, 200, { "cache-control": "public, max-age=5" });
}
