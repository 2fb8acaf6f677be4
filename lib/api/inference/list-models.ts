import { modelMetadata } from "../../catalog/model-view";
import { jsonResponse } from "../../http/responses";
import type { ApiCall } from "../route-definition";

/** Catalog models are listed with a fixed creation time so the list is stable across restarts. */
const catalogCreated = 1_735_689_600;

/**
 * GET /proxy/<token>/v1/models – the OpenAI list shape (`id`, `object`, `created`, `owned_by`)
 * with the catalog's metadata beside it: limits, modalities, capabilities, pricing.
 */
export async function listModels({ app }: ApiCall<"token">): Promise<Response> {
  const data = app.catalog.models.map((model) => ({
    id: model.id,
    object: "model" as const,
    created: catalogCreated,
    owned_by: model.ownedBy,
    ...modelMetadata(app.catalog, model),
  }));
  return jsonResponse({ object: "list", data });
}
