import type { Usage } from "../../pricing/cost";
import type { UsageReading } from "./usage-reading";

/**
 * What a reply said it used, read through the bounded readers of lib/dialects/usage: nothing,
 * a figure refused at the boundary, or a reading. It is a claim: the meter (lib/usage/meter-usage.ts)
 * decides what is billed.
 */
export type UsageClaim =
  | { type: "absent" }
  | { type: "invalid"; reason: string }
  | {
      type: "read";
      usage: Usage;
      /** The reasoning share of the output, where the source reports it. */
      reasoningTokens: number | undefined;
      /** False while an Anthropic stream has only message_start's placeholder output count. */
      outputReported: boolean;
    };

export const absentClaim: UsageClaim = { type: "absent" };

export function claimOf(
  reading: UsageReading<{ usage: Usage; reasoningTokens: number | undefined }>,
): UsageClaim {
  if (reading.type !== "read") return reading;
  return { type: "read", ...reading.value, outputReported: true };
}
