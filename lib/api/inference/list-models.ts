import { jsonResponse } from "../../http/responses";
import type { ApiCall } from "../route-definition";

/** Catalog models are listed with a fixed creation time so the list is stable across restarts. */
const catalogCreated = 1_735_689_600;

/** GET /proxy/<token>/v1/models – the OpenAI list shape, exactly. */
export async function listModels({ app }: ApiCall<"token">): Promise<Response> {
  const data = app.catalog.models.map((model) => ({
    id: model.id,
    object: "model" as const,
    created: catalogCreated,
    owned_by: model.ownedBy,
  }));
  return jsonResponse({ object: "list", data });
}
