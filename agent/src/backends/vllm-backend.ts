import type { ListedModel } from "./backend";
import { HttpBackend, tokenCount } from "./http-backend";

/**
 * vLLM: /v1/models names each model with its `max_model_len`, the context the server was
 * started with. vLLM refuses a request whose prompt plus output limit exceeds it.
 */
export class VllmBackend extends HttpBackend {
  override async listModels(): Promise<ListedModel[]> {
    const body = (await this.getJson("/v1/models")) as {
      data?: Array<{ id?: unknown; max_model_len?: unknown }>;
    };
    return (body.data ?? []).map((model) => ({
      id: String(model.id),
      contextWindow: tokenCount(model.max_model_len),
    }));
  }
}
