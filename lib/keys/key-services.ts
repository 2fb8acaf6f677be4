import type { KeySpendLimits } from "./key-spend-limits";

/** What claiming and settling a further API key's spend reads: the per-process limit book. */
export interface KeyServices {
  /** Further API keys' spend limits, enforced in memory (lib/keys/key-spend-limits.ts). */
  keyLimits: KeySpendLimits;
}
