import { LAMPORTS_PER_SOL, WSOL_MINT } from "./constants";

/**
 * SOL/USD pricing for x402 payments in SOL. Prices are integers in micro-USD per SOL
 * (1 SOL = $143.52 → 143_520_000n) so quoting never touches floating point money.
 */

interface SolPrice {
  microUsdPerSol: bigint;
  observedAt: Date;
  source: string;
}

/** Anything that can produce a current SOL price; implementations throw `SolPriceError`. */
export interface SolPriceSource {
  getPrice(): Promise<SolPrice>;
}

type SolPriceErrorReason = "fetch_failed" | "timeout" | "bad_status" | "bad_payload" | "out_of_bounds";

class SolPriceError extends Error {
  override readonly name = "SolPriceError";
  readonly reason: SolPriceErrorReason;

  constructor(reason: SolPriceErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

const MICRO_USD_PER_USD = 1_000_000n;

/** $1 and $100,000 per SOL: anything outside is a broken feed, not a market. */
const DEFAULT_MIN_MICRO_USD_PER_SOL = 1n * MICRO_USD_PER_USD;
const DEFAULT_MAX_MICRO_USD_PER_SOL = 100_000n * MICRO_USD_PER_USD;

/** Coinbase's public spot endpoint; any URL works with a matching `extractPrice`. */
const DEFAULT_SOL_PRICE_URL = "https://api.coinbase.com/v2/prices/SOL-USD/spot";

/**
 * Lamports that cover `microUsd` at `microUsdPerSol`, rounded up so the payer never
 * sends less than the dollar amount quoted.
 */
export function usdToLamports(microUsd: bigint, microUsdPerSol: bigint): bigint {
  if (microUsdPerSol <= 0n) throw new RangeError("SOL price must be positive");
  if (microUsd < 0n) throw new RangeError("amount must not be negative");
  const numerator = microUsd * LAMPORTS_PER_SOL;
  return (numerator + microUsdPerSol - 1n) / microUsdPerSol;
}

const DECIMAL_PATTERN = /^(\d{1,12})(?:\.(\d+))?$/;

/**
 * Parses a decimal USD price ("143.52" or the JSON number 143.52) into micro-USD,
 * truncating past six decimals. Works on the decimal text, never on float arithmetic.
 */
export function parseUsdPrice(value: unknown): bigint {
  const text = typeof value === "number" && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== "string")
    throw new SolPriceError("bad_payload", "price is not a number or decimal string");
  const match = DECIMAL_PATTERN.exec(text.trim());
  if (!match) throw new SolPriceError("bad_payload", `price is not a plain decimal: ${text.slice(0, 40)}`);
  const whole = BigInt(match[1] ?? "0");
  const fraction = (match[2] ?? "").slice(0, 6).padEnd(6, "0");
  return whole * MICRO_USD_PER_USD + BigInt(fraction);
}

export function createFixedSolPriceSource(microUsdPerSol: bigint, source = "fixed"): SolPriceSource {
  if (microUsdPerSol <= 0n) throw new RangeError("SOL price must be positive");
  return { getPrice: async () => ({ microUsdPerSol, observedAt: new Date(), source }) };
}

/**
 * Reads the price from the common public shapes: Coinbase `{data:{amount}}`, Jupiter
 * `{data:{<wSOL mint>:{price}}}`, or a flat `{price}` / `{usd}`.
 */
function extractCommonPrice(json: unknown): unknown {
  const record = asRecord(json);
  const data = asRecord(record?.data);
  if (data && "amount" in data) return data.amount;
  const jupiter = asRecord(data?.[WSOL_MINT]);
  if (jupiter && "price" in jupiter) return jupiter.price;
  if (record && "price" in record) return record.price;
  if (record && "usd" in record) return record.usd;
  return undefined;
}

export interface HttpSolPriceSourceOptions {
  url?: string;
  extractPrice?: (json: unknown) => unknown;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** A live source: one GET per call, no caching (wrap it with `withPriceCache`). */
export function createHttpSolPriceSource(options: HttpSolPriceSourceOptions = {}): SolPriceSource {
  const url = options.url ?? DEFAULT_SOL_PRICE_URL;
  const extract = options.extractPrice ?? extractCommonPrice;
  const timeoutMs = options.timeoutMs ?? 3_000;
  const fetchImpl = options.fetch ?? fetch;
  const source = new URL(url).host;
  return {
    async getPrice() {
      let response: Response;
      try {
        response = await fetchImpl(url, {
          headers: { accept: "application/json" },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const timedOut = error instanceof Error && error.name === "TimeoutError";
        throw new SolPriceError(
          timedOut ? "timeout" : "fetch_failed",
          timedOut ? `SOL price request to ${source} timed out` : `SOL price request to ${source} failed`,
          { cause: error },
        );
      }
      if (!response.ok) {
        throw new SolPriceError("bad_status", `SOL price source ${source} answered HTTP ${response.status}`);
      }
      let json: unknown;
      try {
        json = await response.json();
      } catch (error) {
        throw new SolPriceError("bad_payload", `SOL price source ${source} did not return JSON`, {
          cause: error,
        });
      }
      return { microUsdPerSol: parseUsdPrice(extract(json)), observedAt: new Date(), source };
    },
  };
}

/** Rejects prices outside [min, max] so a broken feed cannot make SOL quotes absurd. */
export function withPriceBounds(
  inner: SolPriceSource,
  bounds: { minMicroUsdPerSol?: bigint; maxMicroUsdPerSol?: bigint } = {},
): SolPriceSource {
  const min = bounds.minMicroUsdPerSol ?? DEFAULT_MIN_MICRO_USD_PER_SOL;
  const max = bounds.maxMicroUsdPerSol ?? DEFAULT_MAX_MICRO_USD_PER_SOL;
  return {
    async getPrice() {
      const price = await inner.getPrice();
      if (price.microUsdPerSol < min || price.microUsdPerSol > max) {
        throw new SolPriceError(
          "out_of_bounds",
          `SOL price ${price.microUsdPerSol} micro-USD from ${price.source} is outside [${min}, ${max}]`,
        );
      }
      return price;
    },
  };
}

/**
 * Caches the last good price for `ttlMs` and shares one in-flight request between
 * concurrent callers. Failures are not cached, so the next call retries.
 */
export function withPriceCache(
  inner: SolPriceSource,
  options: { ttlMs?: number; now?: () => number } = {},
): SolPriceSource {
  const ttlMs = options.ttlMs ?? 30_000;
  const now = options.now ?? Date.now;
  let cached: { price: SolPrice; fetchedAt: number } | undefined;
  let inFlight: Promise<SolPrice> | undefined;
  return {
    getPrice() {
      if (cached && now() - cached.fetchedAt < ttlMs) return Promise.resolve(cached.price);
      inFlight ??= inner
        .getPrice()
        .then((price) => {
          cached = { price, fetchedAt: now() };
          return price;
        })
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
  };
}

/** The production default: live HTTP feed, sanity-bounded, then cached. */
export function createDefaultSolPriceSource(
  options: HttpSolPriceSourceOptions & {
    ttlMs?: number;
    minMicroUsdPerSol?: bigint;
    maxMicroUsdPerSol?: bigint;
  } = {},
): SolPriceSource {
  return withPriceCache(withPriceBounds(createHttpSolPriceSource(options), options), {
    ttlMs: options.ttlMs,
  });
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}
