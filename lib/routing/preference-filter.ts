import type { Candidate } from "../providers/candidate";
import type { ProviderPreferences } from "./provider-preferences";

/**
 * Request fields whose support differs between sources: with `provider.require_parameters`, a
 * request that uses one goes only to centralized providers, whose APIs document them; a
 * marketplace host or a key relay declares no parameter support, so it is refused.
 */
const sourceDependentParameters = [
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "response_format",
  "text",
  "seed",
  "logprobs",
  "top_logprobs",
  "logit_bias",
  "frequency_penalty",
  "presence_penalty",
  "reasoning",
  "reasoning_effort",
  "thinking",
  "output_config",
  "output_format",
  "top_k",
] as const;

/** The source-dependent parameters a body uses (null and absent are not uses). */
export function usedParameters(body: Record<string, unknown>): string[] {
  return sourceDependentParameters.filter((field) => body[field] !== undefined && body[field] !== null);
}

/** A provider slug names a source by its provider (a centralized name or a host's id) or its route kind. */
function names(candidate: Candidate, slugs: readonly string[]): boolean {
  return slugs.includes(candidate.providerId.toLowerCase()) || slugs.includes(candidate.route);
}

/**
 * Whether the caller's preferences admit a source: `only` and `ignore` by name, and the
 * guarantees a source must declare to be chosen (`quantizations`, `data_collection: "deny"`,
 * `require_parameters`). A source that declares nothing never passes a guarantee.
 */
export function admittedBy(preferences: ProviderPreferences, parameters: readonly string[]) {
  return (candidate: Candidate): boolean => {
    if (preferences.only && !names(candidate, preferences.only)) return false;
    if (preferences.ignore && names(candidate, preferences.ignore)) return false;
    if (
      preferences.maxRequestPrice !== undefined &&
      (candidate.price.requestPrice ?? 0n) > preferences.maxRequestPrice
    )
      return false;
    if (preferences.quantizations && !preferences.quantizations.includes(candidate.quantization ?? ""))
      return false;
    if (preferences.dataCollection === "deny" && candidate.dataCollection !== "deny") return false;
    if (preferences.requireParameters && parameters.length > 0 && candidate.route !== "centralized")
      return false;
    return true;
  };
}

/** The preferences that narrow the sources, for a message naming why none is left. */
export function narrowingFields(preferences: ProviderPreferences, parameters: readonly string[]): string[] {
  return [
    ...(preferences.only ? [`only: ${preferences.only.join(", ")}`] : []),
    ...(preferences.ignore ? [`ignore: ${preferences.ignore.join(", ")}`] : []),
    ...(preferences.maxRequestPrice === undefined
      ? []
      : [`max_price.request: ${preferences.maxRequestPrice} microunits`]),
    ...(preferences.quantizations
      ? [`quantizations: ${preferences.quantizations.join(", ")} (no source declares one)`]
      : []),
    ...(preferences.dataCollection === "deny"
      ? ['data_collection: "deny" (declared by the operator per provider)']
      : []),
    ...(preferences.requireParameters && parameters.length > 0
      ? [`require_parameters with ${parameters.join(", ")} (centralized providers only)`]
      : []),
  ];
}

/**
 * `provider.order` and `provider.allow_fallbacks` on a try order: the named providers first, in
 * the caller's order (each keeping its own candidates' order), then the rest; without fallbacks,
 * only the named ones, or only the first candidate when none is named.
 */
export function applyOrder(candidates: readonly Candidate[], preferences: ProviderPreferences): Candidate[] {
  const order = preferences.order ?? [];
  const named = order.flatMap((slug) => candidates.filter((candidate) => names(candidate, [slug])));
  const first = [...new Set(named)];
  if (!preferences.allowFallbacks) return order.length > 0 ? first : candidates.slice(0, 1);
  return [...first, ...candidates.filter((candidate) => !first.includes(candidate))];
}
