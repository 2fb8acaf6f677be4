import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { queryRows } from "../db/client";
import { log } from "../log";
import type { KeyLimit } from "./key-principal";
import { periodEnd, periodStart } from "./limit-period";

/** One key's spend in one limit period, as this process sees it. */
interface PeriodSpend {
  keyId: string;
  periodStart: Date;
  /** Spend written to the database (usage records of the period), as last read. */
  stored: bigint;
  /** This process's charges not yet seen in `stored`, by request id. */
  local: Map<string, bigint>;
  localTotal: bigint;
  /** Claimed by this process's requests in flight. */
  reserved: bigint;
  readAt: number;
  /** The first read: nothing is claimed before it. */
  loading: Promise<void> | undefined;
  refreshing: boolean;
}

/** What a request holds against its key's limit: released or settled exactly once. */
export interface KeyClaim {
  keyId: string;
  amount: bigint;
  /** The period it was claimed in (a claim settling after midnight settles into that one). */
  spend: PeriodSpend;
}

export type KeyClaimResult =
  | { type: "claimed"; claim: KeyClaim }
  | { type: "reached"; limit: KeyLimit; spent: bigint; resetsAt: Date };

export interface KeySpendLimitsOptions {
  database: Database;
  /** How often an active key's stored spend is read again (another replica's charges). */
  refreshMs: number;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * Per-key spend limits on the hot path without a database round trip per request. A request
 * made with a limited key claims its worst case out of what the key has left in this period
 * (the limit less what is stored, what this process charged since and what its requests in
 * flight claimed) in one synchronous step, before its balance hold; the hold is never more
 * than the claim, and a charge never more than the hold. So within one process a key never
 * spends past its limit, however many requests race. The stored spend is read once when a
 * key is first used in a period and again in the background every `refreshMs` while it is
 * used: another replica's charges count from then on (the documented overshoot across
 * replicas is what they claimed within that window).
 */
export class KeySpendLimits {
  readonly #options: KeySpendLimitsOptions;
  readonly #spends = new Map<string, PeriodSpend>();

  constructor(options: KeySpendLimitsOptions) {
    this.#options = options;
  }

  /**
   * Claims up to `most` (at least `least`) for a request made with a limited key, or says the
   * limit is reached when less than `least` is left.
   */
  async claim(
    keyId: string,
    limit: KeyLimit,
    least: bigint,
    most: bigint,
    now = new Date(),
  ): Promise<KeyClaimResult> {
    const spend = this.#spendOf(keyId, limit, now);
    if (spend.loading) await spend.loading;
    else if (Date.now() - spend.readAt >= this.#options.refreshMs) this.#refresh(spend);
    // From here to the claim nothing awaits: racing requests each see the others' claims.
    const used = spend.stored + spend.localTotal + spend.reserved;
    const left = limit.microunits - used;
    if (left < least || left <= 0n)
      return {
        type: "reached",
        limit,
        spent: max(spend.stored + spend.localTotal, 0n),
        resetsAt: periodEnd(limit.period, now),
      };
    const amount = min(most, left);
    spend.reserved += amount;
    return { type: "claimed", claim: { keyId, amount, spend } };
  }

  /** The balance hold came out smaller than the claim: the difference goes back now. */
  shrink(claim: KeyClaim, amount: bigint): void {
    if (amount >= claim.amount) return;
    claim.spend.reserved -= claim.amount - amount;
    claim.amount = amount;
  }

  /** The request failed before anything was billed. */
  release(claim: KeyClaim): void {
    claim.spend.reserved -= claim.amount;
    claim.amount = 0n;
  }

  /** The request was charged `charged` (never more than its claim): it counts until the database shows it. */
  settle(claim: KeyClaim, requestId: string, charged: bigint): void {
    const { spend } = claim;
    spend.reserved -= claim.amount;
    claim.amount = 0n;
    if (charged <= 0n) return;
    spend.local.set(requestId, (spend.local.get(requestId) ?? 0n) + charged);
    spend.localTotal += charged;
  }

  /** What a key has spent in the current period as this process sees it (stored plus its own unwritten charges). */
  async spent(keyId: string, limit: KeyLimit, now = new Date()): Promise<bigint> {
    const spend = this.#spendOf(keyId, limit, now);
    if (spend.loading) await spend.loading;
    return spend.stored + spend.localTotal;
  }

  #spendOf(keyId: string, limit: KeyLimit, now: Date): PeriodSpend {
    const start = periodStart(limit.period, now);
    const known = this.#spends.get(keyId);
    if (known && known.periodStart.getTime() === start.getTime()) return known;
    const spend: PeriodSpend = {
      keyId,
      periodStart: start,
      stored: 0n,
      local: new Map(),
      localTotal: 0n,
      reserved: 0n,
      readAt: Date.now(),
      loading: undefined,
      refreshing: false,
    };
    spend.loading = this.#read(spend).finally(() => {
      spend.loading = undefined;
    });
    this.#spends.set(keyId, spend);
    this.#evictIdle(now);
    return spend;
  }

  #refresh(spend: PeriodSpend): void {
    if (spend.refreshing) return;
    spend.refreshing = true;
    this.#read(spend)
      .catch((error: unknown) => log.warn("reading a key's spend failed; the last reading stands", { error }))
      .finally(() => {
        spend.refreshing = false;
      });
  }

  /**
   * The period's stored spend and which of this process's charges it already includes, in one
   * snapshot: those leave `local`, the rest stay counted, so nothing is counted twice or lost.
   */
  async #read(spend: PeriodSpend): Promise<void> {
    const pending = [...spend.local.keys()];
    const rows = await queryRows<{ spent: string | bigint; seen: unknown }>(
      this.#options.database,
      sql`SELECT COALESCE(SUM(cost_microunits), 0)::text AS spent,
                 COALESCE(jsonb_agg(request_id) FILTER (
                   WHERE request_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(pending)}::jsonb))
                 ), '[]'::jsonb) AS seen
          FROM usage_records
          WHERE api_key_id = ${spend.keyId} AND created_at >= ${spend.periodStart.toISOString()}`,
    );
    const row = rows[0];
    const seen = parseSeen(row?.seen);
    for (const requestId of seen) {
      const charged = spend.local.get(requestId);
      if (charged === undefined) continue;
      spend.local.delete(requestId);
      spend.localTotal -= charged;
    }
    spend.stored = BigInt(row?.spent ?? 0);
    spend.readAt = Date.now();
  }

  /** Keys not used for a period are dropped (nothing of theirs is in flight or unwritten). */
  #evictIdle(now: Date): void {
    if (this.#spends.size < 10_000) return;
    for (const [keyId, spend] of this.#spends)
      if (spend.reserved === 0n && spend.local.size === 0 && now.getTime() - spend.readAt > 3_600_000)
        this.#spends.delete(keyId);
  }
}

function parseSeen(value: unknown): string[] {
  const list: unknown = typeof value === "string" ? JSON.parse(value) : value;
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === "string") : [];
}
