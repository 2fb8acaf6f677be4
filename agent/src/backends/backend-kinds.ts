import type { Backend, BackendConfig } from "./backend";
import { GgufBackend } from "./gguf-backend";
import { LlamaCppBackend } from "./llamacpp-backend";
import { LmStudioBackend } from "./lmstudio-backend";
import { OllamaBackend } from "./ollama-backend";
import { OpenAiBackend } from "./openai-backend";
import { VllmBackend } from "./vllm-backend";

/**
 * Every backend kind and its implementation, in priority order: when one model id is on
 * several backends, the first kind here serves it. A new kind is one class and one line.
 */
const backendKinds = {
  vllm: (config: BackendConfig) => new VllmBackend(config),
  llamacpp: (config: BackendConfig) => new LlamaCppBackend(config),
  lmstudio: (config: BackendConfig) => new LmStudioBackend(config),
  ollama: (config: BackendConfig) => new OllamaBackend(config),
  openai: (config: BackendConfig) => new OpenAiBackend(config),
  gguf: (config: BackendConfig) => new GgufBackend(config),
} satisfies Record<string, (config: BackendConfig) => Backend>;

export type BackendKind = keyof typeof backendKinds;

export const backendKindNames = Object.keys(backendKinds) as BackendKind[];

export function isBackendKind(kind: string): kind is BackendKind {
  return Object.hasOwn(backendKinds, kind);
}

/** The implementation for a configured backend (its kind checked by configProblems first). */
export function createBackend(config: BackendConfig): Backend {
  if (!isBackendKind(config.kind))
    throw new Error(`backend kind ${config.kind} is not one of ${backendKindNames.join(", ")}`);
  return backendKinds[config.kind](config);
}

/** Default local ports, probed when no backend is configured. */
export const defaultBackendConfigs: BackendConfig[] = [
  { kind: "vllm", url: "http://127.0.0.1:8000" },
  { kind: "llamacpp", url: "http://127.0.0.1:8080" },
  { kind: "lmstudio", url: "http://127.0.0.1:1234" },
  { kind: "ollama", url: "http://127.0.0.1:11434" },
];
