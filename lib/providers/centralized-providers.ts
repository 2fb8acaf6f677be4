import type { CentralizedUpstreamName } from "../env";

export type WireDialect = "openai" | "anthropic";

/** How to reach a centralized upstream: config as data, one entry per provider. */
export interface CentralizedProviderSpec {
  name: CentralizedUpstreamName;
  dialect: WireDialect;
  /** Default base URL; OpenAI-family bases end with the version segment, the Anthropic base does not. */
  defaultBaseUrl: string;
}

export const centralizedProviderSpecs: Record<CentralizedUpstreamName, CentralizedProviderSpec> = {
  openai: { name: "openai", dialect: "openai", defaultBaseUrl: "https://api.openai.com/v1" },
  anthropic: { name: "anthropic", dialect: "anthropic", defaultBaseUrl: "https://api.anthropic.com" },
  openrouter: { name: "openrouter", dialect: "openai", defaultBaseUrl: "https://openrouter.ai/api/v1" },
  together: { name: "together", dialect: "openai", defaultBaseUrl: "https://api.together.xyz/v1" },
  groq: { name: "groq", dialect: "openai", defaultBaseUrl: "https://api.groq.com/openai/v1" },
  venice: { name: "venice", dialect: "openai", defaultBaseUrl: "https://api.venice.ai/api/v1" },
};

/**
 * Provider names a client may pin with `X-Pod-Providers`: ours plus every name the
 * reference service documents, so a pin written for it is never a 400 here.
 */
export const pinnableCentralizedNames = [
  "anthropic",
  "openai",
  "bedrock",
  "venice",
  "together",
  "groq",
  "openrouter",
  "nousresearch",
  "google",
  "surplus",
  "c0mpute",
  "uomi",
  // The dev simulator (POD_SIMULATOR=true) can be pinned too.
  "simulator",
] as const;
