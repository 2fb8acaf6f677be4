import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { apiTokens, autoTopUps, lowBalanceAlerts } from "../db/schema";
import type { CardSettings } from "../funding/card-settings";
import type { BalanceLeases } from "../ledger/balance-lease";
import { log } from "../log";
import { chargeAutoTopUp, settledBalance } from "./auto-top-up";
import { sendBalanceAlert } from "./send-balance-alert";

/** What this process knows of an account's alert and auto top-up, re-read every `staleMs`. */
interface Watched {
  tokenId: string;
  depositCode: string;
  alert: { threshold: bigint; armed: boolean } | undefined;
  topUp: { threshold: bigint; armed: boolean } | undefined;
}

interface CacheEntry {
  watched: Watched | undefined;
  loadedAt: number;
  loading: boolean;
}

export interface BalanceWatcherOptions {
  database: Database;
  leases: BalanceLeases | undefined;
  card: () => CardSettings;
  allowPrivateUrls: boolean;
  staleMs?: number;
}

/**
 * Low-balance alerts and auto top-up, driven by charges. After each settlement the hot path
 * makes one map lookup; only an account with an alert or auto top-up whose balance is on the
 * other side of a threshold from where it was gets a check, run in the background, one at a
 * time per account. The check reads the settled balance from the database: the alert is sent
 * by the one process whose conditional update disarms it, and auto top-up claims its charge
 * in a transaction (lib/balance-watch/auto-top-up.ts), so neither happens twice per crossing.
 */
export class BalanceWatcher {
  readonly #options: BalanceWatcherOptions;
  readonly #cache = new Map<bigint, CacheEntry>();
  readonly #running = new Map<bigint, Promise<void>>();
  /** Accounts with a check waiting behind the running one: a crowd of charges queues one more, not many. */
  readonly #queued = new Set<bigint>();
  /** Settings reads in flight (each may schedule a check when it lands). */
  readonly #loads = new Set<Promise<void>>();
  readonly #staleMs: number;

  constructor(options: BalanceWatcherOptions) {
    this.#options = options;
    this.#staleMs = options.staleMs ?? 10_000;
  }

  /** A charge was settled: `available` is the account's balance less what its requests in flight hold. */
  afterCharge(accountId: bigint, available: bigint): void {
    const entry = this.#cache.get(accountId);
    if (!entry || (Date.now() - entry.loadedAt > this.#staleMs && !entry.loading)) {
      this.#load(accountId, available);
      return;
    }
    // schedule() never rejects: a failed check is logged there.
    if (entry.watched && needsCheck(entry.watched, available)) void this.schedule(accountId);
  }

  /** Settings changed here: read them again on the next charge. */
  forget(accountId: bigint): void {
    this.#cache.delete(accountId);
  }

  /** Runs a check for the account now (or after the one running); resolves when it is done. */
  schedule(accountId: bigint): Promise<void> {
    const previous = this.#running.get(accountId);
    if (previous && this.#queued.has(accountId)) return previous;
    if (previous) this.#queued.add(accountId);
    const next = (previous ?? Promise.resolve())
      .then(() => {
        this.#queued.delete(accountId);
        return this.check(accountId);
      })
      .catch((error: unknown) =>
        log.error("balance watch check failed", { error, accountId: accountId.toString() }),
      )
      .finally(() => {
        if (this.#running.get(accountId) === next) this.#running.delete(accountId);
      });
    this.#running.set(accountId, next);
    return next;
  }

  /**
   * Resolves once nothing this watcher started is in flight: no settings read, no check (nor one
   * a read or a check queued). What a caller then sees (a charge made or not, an alert sent or
   * not) is final until the next charge, so "nothing happened" can be read, not waited for.
   */
  async idle(): Promise<void> {
    while (this.#loads.size > 0 || this.#running.size > 0)
      await Promise.all([...this.#loads, ...this.#running.values()]);
  }

  #load(accountId: bigint, available: bigint): void {
    const entry: CacheEntry = this.#cache.get(accountId) ?? {
      watched: undefined,
      loadedAt: 0,
      loading: false,
    };
    entry.loading = true;
    this.#cache.set(accountId, entry);
    const load = this.#read(accountId)
      .then((watched) => {
        entry.watched = watched;
        entry.loadedAt = Date.now();
        if (watched && needsCheck(watched, available)) void this.schedule(accountId);
      })
      .catch((error: unknown) => log.warn("reading balance alerts failed", { error }))
      .finally(() => {
        entry.loading = false;
        this.#loads.delete(load);
      });
    this.#loads.add(load);
    if (this.#cache.size > 100_000) this.#cache.clear();
  }

  async #read(accountId: bigint): Promise<Watched | undefined> {
    const { database } = this.#options;
    const [token] = await database
      .select({ id: apiTokens.id, depositCode: apiTokens.depositCode })
      .from(apiTokens)
      .where(eq(apiTokens.accountId, accountId));
    if (!token) return undefined;
    const [alert] = await database
      .select()
      .from(lowBalanceAlerts)
      .where(eq(lowBalanceAlerts.tokenId, token.id));
    const [topUp] = await database
      .select()
      .from(autoTopUps)
      .where(and(eq(autoTopUps.tokenId, token.id), eq(autoTopUps.enabled, true)));
    if (!alert && !topUp) return undefined;
    return {
      tokenId: token.id,
      depositCode: token.depositCode,
      alert: alert ? { threshold: alert.thresholdMicrounits, armed: alert.armed } : undefined,
      topUp: topUp?.paymentMethodId
        ? { threshold: topUp.thresholdMicrounits, armed: topUp.armed }
        : undefined,
    };
  }

  /** Sends the alert and charges the card if the settled balance is below their thresholds; re-arms them above. */
  async check(accountId: bigint): Promise<void> {
    const { database } = this.#options;
    // This process's unwritten charges first, so the balance read is the one its callers saw.
    await this.#options.leases?.flush();
    const watched = await this.#read(accountId);
    this.#cache.set(accountId, { watched, loadedAt: Date.now(), loading: false });
    if (!watched) return;
    const balance = await settledBalance(database, accountId);
    if (watched.alert) await this.#checkAlert(watched, balance);
    if (watched.topUp) {
      if (balance < watched.topUp.threshold) {
        const card = this.#options.card();
        if (card.enabled) {
          const outcome = await chargeAutoTopUp(database, card, watched.tokenId);
          if (outcome.type !== "skipped") log.info("auto top-up", { tokenId: watched.tokenId, ...outcome });
        }
      } else if (!watched.topUp.armed)
        await database
          .update(autoTopUps)
          .set({ armed: true })
          .where(and(eq(autoTopUps.tokenId, watched.tokenId), eq(autoTopUps.armed, false)));
    }
    this.#cache.set(accountId, {
      watched: await this.#read(accountId),
      loadedAt: Date.now(),
      loading: false,
    });
  }

  async #checkAlert(watched: Watched, balance: bigint): Promise<void> {
    const { database } = this.#options;
    const alert = watched.alert;
    if (!alert) return;
    if (balance >= alert.threshold) {
      if (!alert.armed)
        await database
          .update(lowBalanceAlerts)
          .set({ armed: true })
          .where(and(eq(lowBalanceAlerts.tokenId, watched.tokenId), eq(lowBalanceAlerts.armed, false)));
      return;
    }
    // Only the process whose update disarms it sends it.
    const [fired] = await database
      .update(lowBalanceAlerts)
      .set({ armed: false, lastSentAt: new Date() })
      .where(and(eq(lowBalanceAlerts.tokenId, watched.tokenId), eq(lowBalanceAlerts.armed, true)))
      .returning();
    if (!fired) return;
    if (!fired.webhookUrl) {
      await database
        .update(lowBalanceAlerts)
        .set({ lastResult: "shown on the dashboard (no webhook set)" })
        .where(eq(lowBalanceAlerts.tokenId, watched.tokenId));
      return;
    }
    const result = await sendBalanceAlert(
      { url: fired.webhookUrl, secret: fired.webhookSecret, allowPrivate: this.#options.allowPrivateUrls },
      {
        type: "balance.low",
        created_at: new Date().toISOString(),
        threshold_microunits: Number(fired.thresholdMicrounits),
        available_microunits: Number(balance),
        deposit_code: watched.depositCode,
      },
    );
    await database
      .update(lowBalanceAlerts)
      .set({ lastResult: result })
      .where(eq(lowBalanceAlerts.tokenId, watched.tokenId));
  }
}

/** The balance is on the other side of a threshold from what its armed state expects. */
function needsCheck(watched: Watched, available: bigint): boolean {
  const crossed = (setting: { threshold: bigint; armed: boolean } | undefined) =>
    setting !== undefined && available < setting.threshold === setting.armed;
  return crossed(watched.alert) || crossed(watched.topUp);
}
