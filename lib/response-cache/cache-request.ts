import { badRequest } from "../errors/gateway-error";

/** The request header that turns the cache on or off for one request (and names the result on the answer). */
const cacheHeader = "x-pod-cache";
/** The request header that asks for a shorter life than the operator's for the answer it keeps. */
const cacheTtlHeader = "x-pod-cache-ttl";

/** What a request (or its key) asked of the cache. */
export interface CacheAsk {
  on: boolean;
  /** A shorter life for the answer this request keeps, in seconds. */
  ttlSeconds?: number;
}

function ttlOf(value: unknown, param: string, maxSeconds: number): number {
  const seconds = typeof value === "string" && /^\d{1,9}$/.test(value) ? Number(value) : value;
  if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 1 || seconds > maxSeconds)
    throw badRequest(`${param} must be a whole number of seconds from 1 to ${maxSeconds}`, { param });
  return seconds;
}

/**
 * The body's `cache` (LiteLLM's name): `true`, `false`, or `{ "ttl": seconds }` (on, with a
 * shorter life). Anything else is the caller's 400, never a silent miss.
 */
function bodyAsk(value: unknown, maxSeconds: number): CacheAsk | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "boolean") return { on: value };
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const { ttl, ...rest } = value as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined)
      throw badRequest(`cache.${unknown} is not a cache setting: send true, false or {"ttl": seconds}`, {
        param: "cache",
      });
    return ttl === undefined ? { on: true } : { on: true, ttlSeconds: ttlOf(ttl, "cache.ttl", maxSeconds) };
  }
  throw badRequest('cache must be true, false or {"ttl": seconds}', { param: "cache" });
}

function headerAsk(headers: Headers, maxSeconds: number): CacheAsk | undefined {
  const raw = headers.get(cacheHeader);
  const ttl = headers.get(cacheTtlHeader);
  const ttlSeconds = ttl === null ? undefined : ttlOf(ttl, cacheTtlHeader, maxSeconds);
  if (raw === null) return ttlSeconds === undefined ? undefined : { on: true, ttlSeconds };
  const value = raw.trim().toLowerCase();
  if (value !== "on" && value !== "off")
    throw badRequest(`${cacheHeader} must be on or off`, { param: cacheHeader });
  return { on: value === "on", ...(ttlSeconds === undefined ? {} : { ttlSeconds }) };
}

/**
 * What one request asked: the header, else the body field, else the key's setting; `off` from
 * the request wins over a key that caches (a request can always refuse a kept answer).
 * Undefined when nothing asked (the common case: the cache costs nothing more).
 */
export function readCacheAsk(
  headers: Headers,
  bodyField: unknown,
  keyCaches: boolean,
  maxSeconds: number,
): CacheAsk | undefined {
  const header = headerAsk(headers, maxSeconds);
  const body = bodyAsk(bodyField, maxSeconds);
  if (header?.on === false || body?.on === false) return { on: false };
  const ttlSeconds = header?.ttlSeconds ?? body?.ttlSeconds;
  if (header?.on || body?.on || keyCaches)
    return { on: true, ...(ttlSeconds === undefined ? {} : { ttlSeconds }) };
  return undefined;
}

/**
 * Only a request whose answer is meant to repeat is kept: temperature 0, or an explicit seed
 * (OpenAI's `seed`), with one choice. Anything sampled freely would hand back one draw forever.
 */
export function isRepeatable(body: Record<string, unknown>, choices: number): boolean {
  if (choices !== 1) return false;
  return body.temperature === 0 || (typeof body.seed === "number" && Number.isInteger(body.seed));
}
