import type { Backend, BackendConfig, BackendRequest, ListedModel } from "./backend";

/** How long a backend has to list its models before it counts as not answering. */
const listTimeoutMs = 2_000;

/** `http://host:8000/v1/` → `http://host:8000`: the config accepts the root with or without /v1. */
function serverRoot(url: string | undefined): string {
  return (url ?? "").replace(/\/+$/, "").replace(/\/v1$/, "");
}

/**
 * A model server over HTTP that speaks the OpenAI API (and, when `format` says so, Anthropic's
 * Messages API): what vLLM, llama.cpp's server, LM Studio, Ollama and most others expose. The
 * kinds differ in how they list models and report a context window; subclasses say how.
 */
export class HttpBackend implements Backend {
  readonly config: BackendConfig;

  constructor(config: BackendConfig) {
    this.config = config;
  }

  location(): string {
    return this.config.url ?? "";
  }

  problems(): string[] {
    return /^https?:\/\//.test(this.config.url ?? "")
      ? []
      : [`${this.config.kind} backend url must be http(s): ${this.config.url}`];
  }

  async listModels(): Promise<ListedModel[]> {
    const body = (await this.getJson("/v1/models")) as { data?: Array<{ id?: unknown }> };
    return (body.data ?? []).map((model) => ({ id: String(model.id), contextWindow: undefined }));
  }

  maxConcurrent(configured: number): number {
    return configured;
  }

  async prepare(): Promise<undefined> {
    return undefined;
  }

  respond(modelId: string, request: BackendRequest, signal: AbortSignal): Promise<Response> {
    const path = request.format === "anthropic" ? "/v1/messages" : "/v1/chat/completions";
    return fetch(`${serverRoot(this.config.url)}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(request.format === "anthropic" ? { "anthropic-version": "2023-06-01" } : {}),
        ...this.authHeaders(),
      },
      body: JSON.stringify({ ...request.body, model: modelId }),
      signal,
    });
  }

  /** GET `path` on the server as JSON; throws with the status when it does not answer 200. */
  protected async getJson(path: string): Promise<unknown> {
    const url = `${serverRoot(this.config.url)}${path}`;
    const response = await fetch(url, {
      headers: this.authHeaders(),
      signal: AbortSignal.timeout(listTimeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`${url} answered ${response.status}`);
    }
    return response.json();
  }

  /** The same as getJson, or undefined when the server does not offer `path`. */
  protected async optionalJson(path: string): Promise<unknown> {
    try {
      return await this.getJson(path);
    } catch {
      return undefined;
    }
  }

  private authHeaders(): Record<string, string> {
    const key = this.config.api_key_env ? process.env[this.config.api_key_env] : undefined;
    return key ? { authorization: `Bearer ${key}`, "x-api-key": key } : {};
  }
}

/** A positive whole number of tokens, or undefined for anything else a server might send. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
