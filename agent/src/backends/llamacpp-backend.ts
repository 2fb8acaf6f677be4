import type { ListedModel } from "./backend";
import { HttpBackend, tokenCount } from "./http-backend";

/**
 * llama.cpp's server: /props gives the context each slot was started with
 * (`default_generation_settings.n_ctx`), which is what bounds a request; /v1/models only
 * gives the size the model was trained for.
 */
export class LlamaCppBackend extends HttpBackend {
  override async listModels(): Promise<ListedModel[]> {
    const models = await super.listModels();
    const props = (await this.optionalJson("/props")) as
      | { default_generation_settings?: { n_ctx?: unknown } }
      | undefined;
    const contextWindow = tokenCount(props?.default_generation_settings?.n_ctx);
    return models.map((model) => ({ ...model, contextWindow }));
  }
}
