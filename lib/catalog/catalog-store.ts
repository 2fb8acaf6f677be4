import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { catalogState } from "../db/schema";
import { log } from "../log";
import { buildCatalogIndex, type CatalogIndex } from "./catalog-index";
import { loadStoredCatalog } from "./stored-catalog";

/**
 * The catalog as requests see it: an in-memory index of the enabled models, rebuilt from the
 * database when its version moves (after this process's own change at once, after another
 * replica's on its signal through Redis, or within one poll without one). A request keeps the prices it was routed with, so a change
 * never alters the price of a request already held.
 */
export class CatalogStore {
  #version = -1n;
  #timer: NodeJS.Timeout | undefined;
  #install: ((index: CatalogIndex) => void) | undefined;
  /** Tells the other replicas this process changed the catalog (their signal channel). */
  #announce: (() => Promise<void>) | undefined;
  /** A reload another replica's change started: requests wait for it rather than price with the old index. */
  #heard: Promise<void> | undefined;

  constructor(private readonly database: Database) {}

  /** Where a rebuilt index goes (the app context's `catalog`). */
  installInto(install: (index: CatalogIndex) => void): void {
    this.#install = install;
  }

  async #currentVersion(): Promise<bigint> {
    const [state] = await this.database
      .select({ version: catalogState.version })
      .from(catalogState)
      .where(eq(catalogState.id, 1));
    return state?.version ?? 0n;
  }

  /** Rebuilds the index from the database now. */
  async reload(): Promise<CatalogIndex> {
    const version = await this.#currentVersion();
    const stored = await loadStoredCatalog(this.database);
    const index = buildCatalogIndex(stored.filter((model) => !model.disabled));
    this.#version = version;
    this.#install?.(index);
    return index;
  }

  /** Where this process's own changes are announced (replicas sharing a Redis). */
  shareChanges(announce: () => Promise<void>): void {
    this.#announce = announce;
  }

  /** This process changed the catalog: rebuilt now, and the other replicas told to. */
  async changed(): Promise<CatalogIndex> {
    const index = await this.reload();
    // Answered only once the others have heard: a request sent after the answer is priced anew.
    await this.#announce?.();
    return index;
  }

  /** Another replica changed the catalog: rebuilt now; requests arriving meanwhile wait for it. */
  heardChange(): void {
    const reloading = this.reloadIfChanged()
      .catch((error: unknown) => log.warn("catalog reload failed", { error }))
      .finally(() => {
        if (this.#heard === reloading) this.#heard = undefined;
      });
    this.#heard = reloading;
  }

  /** Resolves once a reload started by another replica's change is done (at once when none is). */
  get reloading(): Promise<void> | undefined {
    return this.#heard;
  }

  /** Rebuilds only when another process changed the catalog since the last load. */
  async reloadIfChanged(): Promise<void> {
    if ((await this.#currentVersion()) !== this.#version) await this.reload();
  }

  /** Polls for other replicas' changes; the timer never keeps the process alive. */
  startPolling(intervalMs: number): void {
    this.#timer = setInterval(() => {
      this.reloadIfChanged().catch((error: unknown) => log.warn("catalog reload failed", { error }));
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }
}
