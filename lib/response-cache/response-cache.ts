import type { CallerDialect } from "../dialects/dialect";
import type { Env } from "../env";
import { log } from "../log";
import { cacheKey } from "./cache-key";
import { isRepeatable, readCacheAsk } from "./cache-request";
import { type CachedAnswer, readCachedAnswer } from "./cached-answer";
import { redisResponseStore } from "./redis-response-store";
import { MemoryResponseStore, type ResponseStore } from "./response-store";

export interface ResponseCacheSettings {
  ttlSeconds: number;
  /** Entries answer any account (RESPONSE_CACHE_SHARED=on). */
  shared: boolean;
  hitPercent: number;
  maxEntryBytes: number;
}

/** The request as the cache reads it. */
export interface CacheCandidate {
  accountId: bigint;
  dialect: CallerDialect;
  /** The caller's body, the `cache` field taken out. */
  body: Record<string, unknown>;
  /** The body's `cache` field, as sent (undefined when absent). */
  bodyField: unknown;
  headers: Headers;
  choices: number;
  /** The request's key caches every request it makes (its `response_cache` setting). */
  keyCaches: boolean;
}

/**
 * A request the cache looks up (`lookup`), or one that asked but cannot be kept (`bypass`: it is
 * not repeatable, or asked `off`).
 */
export type CacheDecision = { state: "lookup"; key: string; ttlMs: number } | { state: "bypass" };

/** What a served miss hands the cache to keep. */
export type AnswerToKeep = Omit<CachedAnswer, "v" | "storedAt">;

/**
 * The response cache: which requests it serves, their entries' names, and the store behind
 * them (Redis when configured, so every replica answers from the same entries; else memory).
 */
export class ResponseCache {
  readonly settings: ResponseCacheSettings;
  readonly #store: ResponseStore;

  constructor(store: ResponseStore, settings: ResponseCacheSettings) {
    this.#store = store;
    this.settings = settings;
  }

  /** Undefined when the request did not ask (nothing more happens on its path). */
  decide(request: CacheCandidate): CacheDecision | undefined {
    const ask = readCacheAsk(request.headers, request.bodyField, request.keyCaches, this.settings.ttlSeconds);
    if (!ask) return undefined;
    if (!ask.on || !isRepeatable(request.body, request.choices)) return { state: "bypass" };
    return {
      state: "lookup",
      key: cacheKey({
        accountId: this.settings.shared ? undefined : request.accountId,
        dialect: request.dialect,
        body: request.body,
        headers: request.headers,
      }),
      ttlMs: (ask.ttlSeconds ?? this.settings.ttlSeconds) * 1000,
    };
  }

  /** The answer kept under `key`, or undefined (none, expired, unreadable, or the store unreachable). */
  async lookup(key: string): Promise<CachedAnswer | undefined> {
    const text = await this.#store.get(key);
    return text === undefined ? undefined : readCachedAnswer(text);
  }

  /** Keeps an answer unless it is larger than an entry may be; never fails the request that made it. */
  keep(key: string, ttlMs: number, answer: AnswerToKeep): void {
    if (answer.body.length > this.settings.maxEntryBytes) return;
    const text = JSON.stringify({ v: 1, ...answer, storedAt: Date.now() } satisfies CachedAnswer);
    this.#store.set(key, text, ttlMs).catch((error: unknown) => {
      log.warn("response cache: an answer could not be kept", { error });
    });
  }

  /** What a hit is charged: the policy's share of the original cost, rounded up to the microunit. */
  hitCharge(answer: CachedAnswer): bigint {
    return (BigInt(answer.cost) * BigInt(this.settings.hitPercent) + 99n) / 100n;
  }

  close(): Promise<void> {
    return this.#store.close();
  }
}

/** The services' slice: undefined with RESPONSE_CACHE=off. */
export interface ResponseCacheServices {
  responseCache: ResponseCache | undefined;
}

/** The process's cache as the environment configures it. */
export function createResponseCache(env: Env): ResponseCache | undefined {
  if (env.RESPONSE_CACHE === "off") return undefined;
  const maxTtlMs = env.RESPONSE_CACHE_TTL_SECONDS * 1000;
  const store = env.REDIS_URL
    ? redisResponseStore({
        url: env.REDIS_URL,
        namespace: env.REDIS_NAMESPACE,
        maxEntries: env.RESPONSE_CACHE_MAX_ENTRIES,
        maxTtlMs,
      })
    : new MemoryResponseStore(env.RESPONSE_CACHE_MAX_ENTRIES);
  return new ResponseCache(store, {
    ttlSeconds: env.RESPONSE_CACHE_TTL_SECONDS,
    shared: env.RESPONSE_CACHE_SHARED === "on",
    hitPercent: env.RESPONSE_CACHE_HIT_PERCENT,
    maxEntryBytes: env.RESPONSE_CACHE_MAX_ENTRY_BYTES,
  });
}
