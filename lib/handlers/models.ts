import type { AppContext } from "../app-context";
import { errorResponse, jsonResponse } from "../http/responses";
import { authenticateToken } from "../tokens/authenticate-token";

/** Catalog models are listed with a fixed creation time so the list is stable across restarts. */
const catalogCreated = 1_735_689_600;

/** GET /proxy/<token>/v1/models – the OpenAI list shape, exactly. */
export async function handleModels(app: AppContext, _request: Request, token: string): Promise<Response> {
  try {
    await authenticateToken(app.database.db, token);
    const data = app.catalog.models.map((model) => ({
      id: model.id,
      object: "model" as const,
      created: catalogCreated,
      owned_by: model.ownedBy,
    }));
    return jsonResponse({ object: "list", data });
  } catch (error) {
    return errorResponse("openai", error);
  }
}
