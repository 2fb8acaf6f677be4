import type { Backend } from "./backends/backend";
import { backendKindNames, createBackend, defaultBackendConfigs } from "./backends/backend-kinds";
import type { AgentConfig } from "./config";

/** A model the agent sells, the backend that serves it, and its price. */
export interface ServedModel {
  modelId: string;
  backend: Backend;
  inputPer1m: number;
  outputPer1m: number;
  /** Sold at this many microunits per request instead (token prices then 0). */
  requestPrice?: number | undefined;
  maxConcurrent: number;
  /** The context window (tokens) the backend reports for it, when it reports one. */
  contextWindow: number | undefined;
}

export interface Discovery {
  models: ServedModel[];
  /** Backends that did not answer, or models left out, with the reason. */
  notes: string[];
}

/**
 * The models this agent sells: those its backends list, filtered by each backend's
 * allow-list, priced from the config. A model without a price is not sold. When one id is on
 * several backends, the backend of the kind listed first in ./backends/backend-kinds.ts serves it.
 */
export async function discoverModels(config: AgentConfig): Promise<Discovery> {
  const configs = config.backends.length > 0 ? config.backends : defaultBackendConfigs;
  const notes: string[] = [];
  const found: ServedModel[] = [];
  const rank = (kind: string) => backendKindNames.indexOf(kind as (typeof backendKindNames)[number]);
  const backends = [...configs].sort((a, b) => rank(a.kind) - rank(b.kind)).map(createBackend);
  for (const backend of backends) {
    let listed: Awaited<ReturnType<Backend["listModels"]>>;
    try {
      listed = await backend.listModels();
    } catch (error) {
      notes.push(
        `${backend.config.kind} at ${backend.location()}: ${error instanceof Error ? error.message : "unreachable"}`,
      );
      continue;
    }
    for (const { id: modelId, contextWindow } of listed) {
      if (backend.config.models && !backend.config.models.includes(modelId)) continue;
      if (found.some((model) => model.modelId === modelId)) continue;
      const price = config.pricing.models?.[modelId];
      const requestPrice = price?.request_price_microunits;
      const perToken = requestPrice === undefined;
      const inputPer1m = perToken ? (price?.input_per_1m ?? config.pricing.default_input_per_1m ?? 0) : 0;
      const outputPer1m = perToken ? (price?.output_per_1m ?? config.pricing.default_output_per_1m ?? 0) : 0;
      if (perToken ? inputPer1m <= 0 || outputPer1m <= 0 : requestPrice <= 0) {
        notes.push(`${modelId}: no price configured, not sold`);
        continue;
      }
      found.push({
        modelId,
        backend,
        inputPer1m,
        outputPer1m,
        ...(perToken ? {} : { requestPrice }),
        maxConcurrent: backend.maxConcurrent(price?.max_concurrent ?? config.limits.max_concurrent_per_model),
        contextWindow,
      });
    }
  }
  return { models: found, notes };
}

/**
 * Readies every model to serve (a GGUF file is loaded here, a few seconds each). A model that
 * cannot be readied is dropped with the reason, like a backend that does not answer; `loaded`
 * collects what the backends say they did, for the log.
 */
export async function prepareModels(
  models: ServedModel[],
  notes: string[],
  loaded: string[] = [],
): Promise<ServedModel[]> {
  const ready: ServedModel[] = [];
  for (const model of models) {
    try {
      const message = await model.backend.prepare(model.modelId);
      if (message) loaded.push(message);
      // A loaded file knows its real context (capped by what the model was trained for).
      const [listed] = message ? await model.backend.listModels() : [];
      ready.push(listed?.contextWindow ? { ...model, contextWindow: listed.contextWindow } : model);
    } catch (error) {
      notes.push(
        `${model.backend.config.kind} ${model.backend.location()}: cannot load (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
  return ready;
}
