/**
 * Prices per 1M tokens in USDC microunits, and a fixed price per request. A per-request price
 * (`pricing_mode: "per_request"`) has zero token rates and its `requestPrice`; a per-token one
 * has no `requestPrice`. A hold's price may carry both (the dearest of several candidates), and
 * then covers either.
 */
export interface TokenPrice {
  inputPer1m: bigint;
  outputPer1m: bigint;
  cacheReadPer1m: bigint;
  cacheWritePer1m: bigint;
  /** Microunits charged for the request whatever its token counts. */
  requestPrice?: bigint | undefined;
}

/** Token counts of one response; `inputTokens` excludes cached reads and cache writes. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export const emptyUsage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

const perMillion = 1_000_000n;

/** Math.max does not take bigints. */
function maxOf(...values: bigint[]): bigint {
  // biome-ignore lint/complexity/useMathMinMax: Math.max throws on bigint.
  return values.reduce((best, value) => (value > best ? value : best));
}

/** Rounds a non-negative rational up: the gateway never under-bills a fraction of a microunit. */
export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

export function costOfUsage(usage: Usage, price: TokenPrice): bigint {
  const scaled =
    BigInt(usage.inputTokens) * price.inputPer1m +
    BigInt(usage.outputTokens) * price.outputPer1m +
    BigInt(usage.cacheReadTokens) * price.cacheReadPer1m +
    BigInt(usage.cacheWriteTokens) * price.cacheWritePer1m;
  return ceilDiv(scaled, perMillion) + (price.requestPrice ?? 0n);
}

/** The most a request can cost: every input token at the dearest input rate, plus `maxOutputTokens`. */
export function worstCaseCost(inputTokens: number, maxOutputTokens: number, price: TokenPrice): bigint {
  const inputRate = maxOf(price.inputPer1m, price.cacheReadPer1m, price.cacheWritePer1m);
  return (
    ceilDiv(BigInt(inputTokens) * inputRate + BigInt(maxOutputTokens) * price.outputPer1m, perMillion) +
    (price.requestPrice ?? 0n)
  );
}

/**
 * How many output tokens `budget` covers after the worst-case input; 0 when it covers none.
 * Used to bound an upstream `max_tokens` so a balance can never be overdrawn.
 */
export function affordableOutputTokens(budget: bigint, inputTokens: number, price: TokenPrice): number {
  const inputRate = maxOf(price.inputPer1m, price.cacheReadPer1m, price.cacheWritePer1m);
  const left = (budget - (price.requestPrice ?? 0n)) * perMillion - BigInt(inputTokens) * inputRate;
  if (left < 0n) return 0;
  if (price.outputPer1m === 0n) return Number.MAX_SAFE_INTEGER;
  const tokens = left / price.outputPer1m;
  return tokens > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(tokens);
}

/** Splits a gross charge 80/20; the provider share rounds down so the parts always sum to the gross. */
export function splitProviderShare(gross: bigint): { provider: bigint; treasury: bigint } {
  const provider = (gross * 80n) / 100n;
  return { provider, treasury: gross - provider };
}

/** A price of `microunits` per request, whatever the tokens. */
export function perRequestPrice(microunits: bigint): TokenPrice {
  return {
    inputPer1m: 0n,
    outputPer1m: 0n,
    cacheReadPer1m: 0n,
    cacheWritePer1m: 0n,
    requestPrice: microunits,
  };
}
