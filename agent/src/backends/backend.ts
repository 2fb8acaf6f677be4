/** One backend as the config file names it (`backends[]`). */
export interface BackendConfig {
  /** Which implementation serves it: see ./backend-kinds.ts. */
  kind: string;
  /** Server root, e.g. http://127.0.0.1:8080 (a trailing /v1 is accepted); not for `gguf`. */
  url?: string;
  /** Name of an environment variable holding the backend's API key, if it needs one. */
  api_key_env?: string;
  /** Allow-list: only these model ids are sold (all discovered models when absent). */
  models?: string[];
  /** The wire format the server speaks (OpenAI unless it is an Anthropic-format server). */
  format?: "openai" | "anthropic";
  /** gguf: the model file, served in-process through node-llama-cpp. */
  model_path?: string;
  /** gguf: the catalog id it is sold as (GET /v1/models); default the file name without `.gguf`. */
  model_id?: string;
  /** gguf: context size in tokens (default 4096, at most what the model was trained for). */
  context_size?: number;
  /** gguf: CPU threads for evaluation (default 1). */
  threads?: number;
  /** gguf: "auto" (default) uses an installed GPU build of llama.cpp; false keeps to the CPU. */
  gpu?: "auto" | false;
}

/** One model a backend lists, with the context window it reported (tokens), when it reports one. */
export interface ListedModel {
  id: string;
  contextWindow: number | undefined;
}

/** A request for the backend, in the wire format the job carries. */
export interface BackendRequest {
  body: Record<string, unknown>;
  format: "openai" | "anthropic";
}

/**
 * What the agent needs of a model server, whatever kind it is. Each kind (vLLM, llama.cpp,
 * LM Studio, Ollama, a generic OpenAI-compatible server, a GGUF file served in-process) is
 * one implementation in this folder, registered in ./backend-kinds.ts; the rest of the agent
 * never asks which kind it holds.
 */
export interface Backend {
  readonly config: BackendConfig;
  /** Where it is, for logs: a URL or a model file. */
  location(): string;
  /** What is wrong with its config, as sentences; empty when usable. */
  problems(): string[];
  /** The models it serves now, with their context windows when the server reports them. */
  listModels(): Promise<ListedModel[]>;
  /** Jobs one model may run at once, given what the operator configured. */
  maxConcurrent(configured: number): number;
  /** Readies `modelId` to serve (loads a model file); a message for the log, or undefined. */
  prepare(modelId: string): Promise<string | undefined>;
  /** Sends one request; the Response's bytes go back to the gateway unchanged. */
  respond(modelId: string, request: BackendRequest, signal: AbortSignal): Promise<Response>;
}
