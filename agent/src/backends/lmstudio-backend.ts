import type { ListedModel } from "./backend";
import { HttpBackend, tokenCount } from "./http-backend";

/**
 * LM Studio: its own REST API (/api/v0/models) says each loaded model's context
 * (`loaded_context_length`, else `max_context_length`); /v1/models lists the ids.
 */
export class LmStudioBackend extends HttpBackend {
  override async listModels(): Promise<ListedModel[]> {
    const models = await super.listModels();
    const rich = (await this.optionalJson("/api/v0/models")) as
      | { data?: Array<{ id?: unknown; loaded_context_length?: unknown; max_context_length?: unknown }> }
      | undefined;
    const windows = new Map(
      (rich?.data ?? []).map((entry) => [
        String(entry.id),
        tokenCount(entry.loaded_context_length) ?? tokenCount(entry.max_context_length),
      ]),
    );
    return models.map((model) => ({ ...model, contextWindow: windows.get(model.id) }));
  }
}
