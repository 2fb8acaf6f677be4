import type { AgentConfig, BackendConfig, BackendKind } from "./config";

/** A model the agent can sell, and where it is served. */
export interface ServedModel {
  modelId: string;
  backend: BackendConfig;
  inputPer1m: number;
  outputPer1m: number;
  maxConcurrent: number;
}

/** Default local ports, probed when no backend is configured. */
export const defaultBackends: BackendConfig[] = [
  { kind: "vllm", url: "http://127.0.0.1:8000" },
  { kind: "llamacpp", url: "http://127.0.0.1:8080" },
  { kind: "lmstudio", url: "http://127.0.0.1:1234" },
  { kind: "ollama", url: "http://127.0.0.1:11434" },
];

/** When one model id is on several backends, the first of this order serves it. */
const priority: BackendKind[] = ["vllm", "llamacpp", "lmstudio", "ollama", "openai"];

export function serverRoot(url: string): string {
  return url.replace(/\/+$/, "").replace(/\/v1$/, "");
}

export function backendHeaders(backend: BackendConfig): Record<string, string> {
  const key = backend.api_key_env ? process.env[backend.api_key_env] : undefined;
  return key ? { authorization: `Bearer ${key}`, "x-api-key": key } : {};
}

/** The model ids a server lists: `/v1/models` (OpenAI-compatible) or `/api/tags` (Ollama). */
export async function listModels(backend: BackendConfig, timeoutMs = 2_000): Promise<string[]> {
  const root = serverRoot(backend.url);
  const path = backend.kind === "ollama" ? "/api/tags" : "/v1/models";
  const response = await fetch(`${root}${path}`, {
    headers: backendHeaders(backend),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new Error(`${root}${path} answered ${response.status}`);
  const body = (await response.json()) as {
    data?: Array<{ id?: unknown }>;
    models?: Array<{ name?: unknown }>;
  };
  if (backend.kind === "ollama") return (body.models ?? []).map((model) => String(model.name));
  return (body.data ?? []).map((model) => String(model.id));
}

export interface Discovery {
  models: ServedModel[];
  /** Backends that did not answer, or models left out, with the reason. */
  notes: string[];
}

/**
 * The models this agent sells: those its backends list, filtered by each backend's
 * allow-list, priced from the config. A model without a price is not sold.
 */
export async function discoverModels(config: AgentConfig): Promise<Discovery> {
  const backends = config.backends.length > 0 ? config.backends : defaultBackends;
  const notes: string[] = [];
  const found: ServedModel[] = [];
  const sorted = [...backends].sort((a, b) => priority.indexOf(a.kind) - priority.indexOf(b.kind));
  for (const backend of sorted) {
    let ids: string[];
    try {
      ids = await listModels(backend);
    } catch (error) {
      notes.push(
        `${backend.kind} at ${backend.url}: ${error instanceof Error ? error.message : "unreachable"}`,
      );
      continue;
    }
    for (const modelId of ids) {
      if (backend.models && !backend.models.includes(modelId)) continue;
      if (found.some((model) => model.modelId === modelId)) continue;
      const price = config.pricing.models?.[modelId];
      const inputPer1m = price?.input_per_1m ?? config.pricing.default_input_per_1m ?? 0;
      const outputPer1m = price?.output_per_1m ?? config.pricing.default_output_per_1m ?? 0;
      if (inputPer1m <= 0 || outputPer1m <= 0) {
        notes.push(`${modelId}: no price configured, not sold`);
        continue;
      }
      found.push({
        modelId,
        backend,
        inputPer1m,
        outputPer1m,
        maxConcurrent: price?.max_concurrent ?? config.limits.max_concurrent_per_model,
      });
    }
  }
  return { models: found, notes };
}
