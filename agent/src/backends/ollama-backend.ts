import type { ListedModel } from "./backend";
import { HttpBackend } from "./http-backend";

/**
 * Ollama: models are listed at /api/tags and served through its OpenAI-compatible
 * /v1/chat/completions. Ollama trims a long prompt to its context instead of refusing, so no
 * context window is announced.
 */
export class OllamaBackend extends HttpBackend {
  override async listModels(): Promise<ListedModel[]> {
    const body = (await this.getJson("/api/tags")) as { models?: Array<{ name?: unknown }> };
    return (body.models ?? []).map((model) => ({ id: String(model.name), contextWindow: undefined }));
  }
}
