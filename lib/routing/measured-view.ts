import type { MeasuredFigures } from "@pod-gateway/contracts/model-endpoints";
import type { SourceFigures } from "./source-performance";

const rounded = (value: number | undefined, digits: number) =>
  value === undefined ? null : Number(value.toFixed(digits));

/** A source's measured figures as the public API shows them. */
export function measuredView(figures: SourceFigures): MeasuredFigures {
  return {
    measured: figures.measured,
    requests: figures.requests,
    ttft_ms: rounded(figures.ttftMs, 1),
    tokens_per_second: rounded(figures.tokensPerSecond, 1),
    success_rate: rounded(figures.successRate, 4),
    recent_errors: figures.recentErrors.map((error) => ({
      at: new Date(error.at).toISOString(),
      error: error.error,
    })),
  };
}
