/** Where kept answers live: this process's memory, or the Redis every replica shares. */
export interface ResponseStore {
  /** The value under `key`, or undefined when there is none (or it expired, or the store is unreachable). */
  get(key: string): Promise<string | undefined>;
  /** Keeps `value` under `key` for `ttlMs`; the oldest entries go when the cap is reached. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The store of one process: a Map in insertion order, so the oldest entry is the first key. At
 * most `maxEntries` values, each at most the cache's entry size (the caller checks it), so its
 * memory is bounded by their product; an expired value is dropped when it is read.
 */
export class MemoryResponseStore implements ResponseStore {
  readonly #entries = new Map<string, { value: string; expiresAt: number }>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(maxEntries: number, now: () => number = Date.now) {
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  get size(): number {
    return this.#entries.size;
  }

  async get(key: string): Promise<string | undefined> {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.#entries.delete(key);
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    this.#entries.set(key, { value, expiresAt: this.#now() + ttlMs });
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }
}
