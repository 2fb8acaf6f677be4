import type { Backend, BackendConfig, BackendRequest, ListedModel } from "./backend";
import { defaultGgufContextSize, GgufEngine, ggufFileProblem, ggufModelId } from "./gguf-engine";

/**
 * A GGUF model file served in-process through node-llama-cpp (./gguf-engine.ts): for an
 * operator with a model file and no inference server. One context sequence, so one job at a
 * time; it speaks the OpenAI format only.
 */
export class GgufBackend implements Backend {
  readonly config: BackendConfig;
  #engine: GgufEngine | undefined;

  constructor(config: BackendConfig) {
    this.config = config;
  }

  location(): string {
    return this.config.model_path ?? "(no model_path)";
  }

  problems(): string[] {
    const problems: string[] = [];
    if (!this.config.model_path) problems.push("a gguf backend needs model_path (the .gguf file)");
    if (this.config.format === "anthropic") problems.push("a gguf backend speaks the OpenAI format only");
    for (const [name, value] of [
      ["context_size", this.config.context_size],
      ["threads", this.config.threads],
    ] as const) {
      if (value !== undefined && (!Number.isSafeInteger(value) || value < 1))
        problems.push(`gguf ${name} must be a whole number of at least 1, got ${value}`);
    }
    return problems;
  }

  /** The one id the file is sold as (the file is checked, not loaded). */
  async listModels(): Promise<ListedModel[]> {
    const problem = ggufFileProblem(this.config.model_path ?? "");
    if (problem) throw new Error(problem);
    return [
      {
        id: ggufModelId(this.config),
        contextWindow: this.#engine?.contextSize ?? this.config.context_size ?? defaultGgufContextSize,
      },
    ];
  }

  maxConcurrent(): number {
    return 1;
  }

  async prepare(): Promise<string> {
    this.#engine ??= await GgufEngine.load(this.config);
    return `loaded ${this.#engine.describe()}`;
  }

  async respond(modelId: string, request: BackendRequest, signal: AbortSignal): Promise<Response> {
    this.#engine ??= await GgufEngine.load(this.config);
    return this.#engine.respond({ ...request.body, model: modelId }, signal);
  }
}
