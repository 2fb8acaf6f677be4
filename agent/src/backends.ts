import type { AgentConfig, BackendConfig, BackendKind } from "./config";
import { GgufEngine, ggufFileProblem, ggufModelId } from "./gguf-backend";

/** A model the agent can sell, and where it is served. */
export interface ServedModel {
  modelId: string;
  backend: BackendConfig;
  inputPer1m: number;
  outputPer1m: number;
  maxConcurrent: number;
  /** The in-process model of a `gguf` backend, once loaded (see loadEngines). */
  engine?: GgufEngine;
}

/** Default local ports, probed when no backend is configured. */
const defaultBackends: BackendConfig[] = [
  { kind: "vllm", url: "http://127.0.0.1:8000" },
  { kind: "llamacpp", url: "http://127.0.0.1:8080" },
  { kind: "lmstudio", url: "http://127.0.0.1:1234" },
  { kind: "ollama", url: "http://127.0.0.1:11434" },
];

/** When one model id is on several backends, the first of this order serves it. */
const priority: BackendKind[] = ["vllm", "llamacpp", "lmstudio", "ollama", "openai", "gguf"];

export function serverRoot(url: string | undefined): string {
  return (url ?? "").replace(/\/+$/, "").replace(/\/v1$/, "");
}

export function backendHeaders(backend: BackendConfig): Record<string, string> {
  const key = backend.api_key_env ? process.env[backend.api_key_env] : undefined;
  return key ? { authorization: `Bearer ${key}`, "x-api-key": key } : {};
}

/**
 * The model ids a backend offers: what a server lists at `/v1/models` (OpenAI-compatible) or
 * `/api/tags` (Ollama); for `gguf`, the one id its file is sold as (the file is checked, not loaded).
 */
async function listModels(backend: BackendConfig, timeoutMs = 2_000): Promise<string[]> {
  if (backend.kind === "gguf") {
    const problem = ggufFileProblem(backend.model_path ?? "");
    if (problem) throw new Error(problem);
    return [ggufModelId(backend)];
  }
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
        `${backend.kind} at ${backendLocation(backend)}: ${error instanceof Error ? error.message : "unreachable"}`,
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
        // One context sequence in-process: a GGUF model serves one job at a time.
        maxConcurrent:
          backend.kind === "gguf" ? 1 : (price?.max_concurrent ?? config.limits.max_concurrent_per_model),
      });
    }
  }
  return { models: found, notes };
}

/** Where a backend is: its URL, or the model file of a `gguf` backend. */
export function backendLocation(backend: BackendConfig): string {
  return backend.kind === "gguf" ? (backend.model_path ?? "(no model_path)") : (backend.url ?? "");
}

/**
 * Loads the in-process model of every `gguf` backend among `models` (a few seconds each).
 * A model that fails to load is dropped with the reason, like a backend that does not answer.
 */
export async function loadEngines(models: ServedModel[], notes: string[]): Promise<ServedModel[]> {
  const ready: ServedModel[] = [];
  for (const model of models) {
    if (model.backend.kind !== "gguf") {
      ready.push(model);
      continue;
    }
    try {
      ready.push({ ...model, engine: await GgufEngine.load(model.backend) });
    } catch (error) {
      notes.push(
        `gguf ${backendLocation(model.backend)}: cannot load (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
  return ready;
}
