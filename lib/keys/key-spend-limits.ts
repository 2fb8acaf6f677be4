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
  /** Charges the last read found stored: one settled after that read counts already. */
  lastSeen: Set<string>;
  /** Claimed by this process's requests in flight. */
  reserved: bigint;
  readAt: number;
  /** Requests of this key in flight (holding a claim). */
  inFlight: number;
  /** Requests waiting for in-flight claims to settle, woken when any claim shrinks or ends. */
  waiters: Set<() => void>;
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
  /** What is left of the period once every charge is counted cannot pay for one output token. */
  | { type: "reached"; limit: KeyLimit; spent: bigint; resetsAt: Date }
  /** The period has room, but requests in flight claim it and did not settle within the wait. */
  | { type: "crowded"; limit: KeyLimit; spent: bigint; claimed: bigint; inFlight: number; resetsAt: Date };

/** What a request asks of its key's limit, sized like its balance hold (`LeaseHoldInput`). */
export interface KeyClaimRequest {
  /** The request's worst case. */
  most: bigint;
  /** The least worth claiming (one output token). */
  least: bigint;
  /** Without `whole`, or once the wait is over, a claim is at most 1/share of what is left. */
  share: bigint;
  /** The caller set its own output limit: claim its worst case whole, waiting for room if needed. */
  whole: boolean;
}

export interface KeySpendLimitsOptions {
  database: Database;
  /** How often an active key's stored spend is read again (another replica's charges). */
  refreshMs: number;
  /** How long a request waits for the key's requests in flight to settle before it is refused as crowded. */
  claimWaitMs: number;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** The balance lease's rule (`boundedHold`) applied to what the key has left. */
function boundedClaim(request: KeyClaimRequest, left: bigint): bigint {
  if (left <= 0n) return 0n;
  if (request.whole && request.most <= left) return request.most;
  return min(min(request.most, max(request.least, left / request.share)), left);
}

/**
 * Per-key spend limits on the hot path without a database round trip per request. A request
 * made with a limited key claims out of what the key has left in this period (the limit less
 * what is stored, what this process charged since and what its requests in flight claimed),
 * sized as its balance hold is: its worst case whole when the caller set an output limit,
 * else a share of what is left. The claim is taken in one synchronous step, before the
 * balance hold; the hold is never more than the claim, and a charge never more than the
 * hold, so within one process a key never spends past its limit, however many requests
 * race. At settlement the claim is trued up to the charge, which frees the rest at once.
 *
 * A request whose claim does not fit because other requests of the key are in flight waits
 * for them to settle (up to `claimWaitMs`) instead of being refused: honest traffic under the
 * limit is served. Once the wait is over it takes what is left, bounded, when that pays for
 * one output token; otherwise it is refused as crowded (too many in flight), never as
 * "limit reached", which is said only when the stored and charged spend leaves no room.
 *
 * The stored spend is read once when a key is first used in a period and again in the
 * background every `refreshMs` while it is used: another replica's charges count from then on
 * (the documented overshoot across replicas is what they claimed within that window).
 */
export class KeySpendLimits {
  readonly #options: KeySpendLimitsOptions;
  readonly #spends = new Map<string, PeriodSpend>();

  constructor(options: KeySpendLimitsOptions) {
    this.#options = options;
  }

  /** Claims for a request made with a limited key, or says why it cannot. */
  async claim(
    keyId: string,
    limit: KeyLimit,
    request: KeyClaimRequest,
    now = new Date(),
  ): Promise<KeyClaimResult> {
    const spend = this.#spendOf(keyId, limit, now);
    const deadline = Date.now() + this.#options.claimWaitMs;
    for (;;) {
      if (spend.loading) await spend.loading;
      else if (Date.now() - spend.readAt >= this.#options.refreshMs) this.#refresh(spend);
      // From here to the claim nothing awaits: racing requests each see the others' claims.
      const spent = max(spend.stored + spend.localTotal, 0n);
      const room = limit.microunits - spent;
      const resetsAt = periodEnd(limit.period, now);
      if (room < request.least || room <= 0n) return { type: "reached", limit, spent, resetsAt };
      const amount = boundedClaim(request, room - spend.reserved);
      // Worth waiting for: the whole worst case the caller asked for when the period has room for it.
      const wanted = request.whole && request.most <= room ? request.most : request.least;
      const late = Date.now() >= deadline;
      if (amount >= wanted || (late && amount >= request.least)) {
        spend.reserved += amount;
        spend.inFlight += 1;
        return { type: "claimed", claim: { keyId, amount, spend } };
      }
      if (late || spend.inFlight === 0)
        return {
          type: "crowded",
          limit,
          spent,
          claimed: spend.reserved,
          inFlight: spend.inFlight,
          resetsAt,
        };
      await waitForRoom(spend, deadline - Date.now());
    }
  }

  /** The balance hold came out smaller than the claim: the difference goes back now. */
  shrink(claim: KeyClaim, amount: bigint): void {
    if (amount >= claim.amount) return;
    claim.spend.reserved -= claim.amount - amount;
    claim.amount = amount;
    wake(claim.spend);
  }

  /** The request failed before anything was billed. */
  release(claim: KeyClaim): void {
    claim.spend.reserved -= claim.amount;
    claim.amount = 0n;
    claim.spend.inFlight -= 1;
    wake(claim.spend);
  }

  /** The request was charged `charged` (never more than its claim): it counts until the database shows it. */
  settle(claim: KeyClaim, requestId: string, charged: bigint): void {
    const { spend } = claim;
    spend.reserved -= claim.amount;
    claim.amount = 0n;
    spend.inFlight -= 1;
    if (charged > 0n && !spend.lastSeen.has(requestId)) {
      spend.local.set(requestId, (spend.local.get(requestId) ?? 0n) + charged);
      spend.localTotal += charged;
    }
    wake(spend);
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
      lastSeen: new Set(),
      reserved: 0n,
      readAt: Date.now(),
      inFlight: 0,
      waiters: new Set(),
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
   * The snapshot names the charges known when the read began and every charge written in the
   * last few seconds: a charge settled while the read was running (written before it was
   * counted here, as a hold row's settlement is) is in the sum, and so must leave `local` too.
   */
  async #read(spend: PeriodSpend): Promise<void> {
    const pending = [...spend.local.keys()];
    const rows = await queryRows<{ spent: string | bigint; seen: unknown }>(
      this.#options.database,
      sql`SELECT COALESCE(SUM(cost_microunits), 0)::text AS spent,
                 COALESCE(jsonb_agg(request_id) FILTER (
                   WHERE request_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(pending)}::jsonb))
                      OR created_at >= now() - interval '10 seconds'
                 ), '[]'::jsonb) AS seen
          FROM usage_records
          WHERE api_key_id = ${spend.keyId} AND created_at >= ${spend.periodStart.toISOString()}`,
    );
    const row = rows[0];
    const seen = parseSeen(row?.seen);
    spend.lastSeen = new Set(seen);
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
      if (spend.inFlight === 0 && spend.local.size === 0 && now.getTime() - spend.readAt > 3_600_000)
        this.#spends.delete(keyId);
  }
}

function parseSeen(value: unknown): string[] {
  const list: unknown = typeof value === "string" ? JSON.parse(value) : value;
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === "string") : [];
}

function wake(spend: PeriodSpend): void {
  const waiters = [...spend.waiters];
  spend.waiters.clear();
  for (const resolve of waiters) resolve();
}

/** Resolves when a claim of the key shrinks or ends, or after `ms`. */
function waitForRoom(spend: PeriodSpend, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      spend.waiters.delete(done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(ms, 0));
    spend.waiters.add(done);
  });
}
