import type { Database } from "../db/client";
import { postgresErrorCode } from "../db/postgres-error-code";
import { newId } from "../ids";
import { log } from "../log";
import { settledWithin } from "../settled-within";
import type { HoldKeeper } from "./hold-keeper";
import { JournalWindow } from "./journal-window";
import { extendLease, returnLease } from "./lease-statements";
import { accountsOwing, collectReceivables, outstandingOf } from "./receivables";
import type { LeaseSettlement, SettleBatchResult } from "./settle-batch";
import type { Journal } from "./settlement-journal";
import { writeSettlements } from "./write-settlements";

/** One account's lease in this process. leased >= reserved + unwritten at all times. */
interface AccountLease {
  accountId: bigint;
  leaseId: string;
  /** The lease hold's amount in the database. */
  leased: bigint;
  /** Held by this process's requests in flight. */
  reserved: bigint;
  /** Charged to served requests, not yet written to the database. */
  unwritten: bigint;
  /** The account's free balance outside every lease, as last seen in the database. */
  outside: bigint;
  inFlight: number;
  lastUsed: number;
  extending: Promise<void> | undefined;
}

export interface LeaseHoldInput {
  accountId: bigint;
  /** The request's worst case. */
  max: bigint;
  /** The least worth holding (one output token); below it the request is refused. */
  min: bigint;
  /** A worst case that does not fit whole, or `whole` false, holds at most 1/share of the free balance. */
  share: bigint;
  /** The caller set its own limit: hold the worst case whole when the free balance covers it. */
  whole: boolean;
}

/**
 * What a request holds out of `free`: its worst case whole when the caller set a limit and it
 * fits; otherwise at most 1/share of the free balance (and never less than `min`), so one
 * request that cannot be paid in full is bounded instead of taking everything from the rest.
 */
function boundedHold(input: Omit<LeaseHoldInput, "accountId">, free: bigint): bigint {
  if (free <= 0n) return 0n;
  if (input.whole && input.max <= free) return input.max;
  return min(min(input.max, max(input.min, free / input.share)), free);
}

export type LeaseHoldResult =
  | { type: "held"; amount: bigint; availableAfter: bigint }
  /** `owes`: a refund or dispute left a receivable open, so nothing may be spent. */
  | { type: "insufficient"; available: bigint; owes?: boolean };

export interface LeaseSettleResult {
  charged: bigint;
  shortfall: bigint;
  availableAfter: bigint;
}

export interface BalanceLeasesOptions {
  database: Database;
  holds: HoldKeeper;
  journal: Journal;
  ttlSeconds: number;
  idleMs: number;
  /** How long a settlement may wait for others to share its write. */
  writeDelayMs: number;
  /**
   * How many answers may go out with their settlement stored nowhere yet (0: each answer waits
   * for its journal row or line), and at most how much of their cost (microunits). Those skip
   * the journal and go straight to the ledger's next batch. None without it.
   */
  journalWindow?: { answers: number; microunits: bigint };
}

const maxBatch = 500;
/** Extensions a request may see fail (the balance moved under it) before it is refused. */
const maxExtendTries = 8;
/** How often each process reads which accounts owe a receivable (so their leases stop at once). */
const owingPollMs = 1_000;
const retryDelayMs = 250;
/** How long a balance read waits for this process's settlements to reach the database. */
const flushWaitMs = 2_000;
/** How long a shutdown waits for the database before leaving the rest to the journal. */
const stopWaitMs = 5_000;
/** How long a stop lets the journal's database commit before the local file takes its rows. */
const journalStopWaitMs = 1_000;

/** Postgres picked this statement as a deadlock victim (40P01): it did nothing and may simply run again. */
async function retryDeadlock<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (postgresErrorCode(error) !== "40P01" || attempt >= 3) throw error;
    }
  }
}

/** True once `work` has settled, false if `deadline` (epoch ms) came first. */
const settledBy = (work: Promise<unknown>, deadline: number) => settledWithin(work, deadline - Date.now());

const free = (lease: AccountLease) => lease.leased - lease.reserved - lease.unwritten;
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Prepaid holds and settlements without a database round trip per request. Each process
 * leases a slice of an account's balance (a hold row it owns, grown in one statement when
 * it runs low); requests hold and settle against the slice in memory; each settlement is
 * journaled before its client is answered (within the journal window it goes straight to the
 * next batch instead: answered first, stored by that batch) and written to the database in
 * batches, one statement for everything settled within `writeDelayMs`. A lease idle for `idleMs` goes
 * back to the balance. Nothing is spent that a lease does not cover, so across any number
 * of processes no account spends more than its balance; a process that dies leaves its
 * journal, replayed at the next start before its leases are released.
 */
export class BalanceLeases {
  readonly #options: BalanceLeasesOptions;
  /** Answers out with their settlements stored nowhere yet: bounded, and counted on /metrics. */
  readonly window: JournalWindow;
  readonly #leases = new Map<bigint, AccountLease>();
  #pending: LeaseSettlement[] = [];
  /** The settlement journaled last: journals finish in the order they are given settlements. */
  #lastJournaled: Promise<void> | undefined;
  #writing: Promise<void> | undefined;
  /** Readers waiting in `flush`: while there are any, a write goes on until nothing is pending. */
  #flushing = 0;
  /**
   * Answered within the window and sent straight to the ledger's next batch, with no journal
   * row, by request id: each holds a window slot until its batch commits (or the journal takes
   * it after all).
   */
  readonly #direct = new Map<string, LeaseSettlement>();
  #writeTimer: NodeJS.Timeout | undefined;
  #timer: NodeJS.Timeout;
  #owingTimer: NodeJS.Timeout;
  #owing = new Set<bigint>();
  #stopped = false;

  constructor(options: BalanceLeasesOptions) {
    this.#options = options;
    this.window = new JournalWindow(
      options.journalWindow?.answers ?? 0,
      options.journalWindow?.microunits ?? 0n,
    );
    this.#timer = setInterval(() => this.#returnIdle(), Math.max(50, Math.floor(options.idleMs / 2)));
    this.#timer.unref();
    this.#owingTimer = setInterval(() => {
      this.#refreshOwing().catch((error: unknown) => log.error("reading receivables failed", { error }));
    }, owingPollMs);
    this.#owingTimer.unref();
  }

  /** Funding may have paid the receivable since the last poll: asked only of an owing account. */
  async #stillOwing(accountId: bigint): Promise<boolean> {
    if ((await outstandingOf(this.#options.database, accountId)) > 0n) return true;
    this.#owing.delete(accountId);
    return false;
  }

  async #refreshOwing(): Promise<void> {
    const owing = await accountsOwing(this.#options.database);
    this.#owing = owing;
    if (owing.size > 0) this.#returnIdle();
  }

  async hold(input: LeaseHoldInput): Promise<LeaseHoldResult> {
    if (this.#owing.has(input.accountId) && (await this.#stillOwing(input.accountId)))
      return { type: "insufficient", available: 0n, owes: true };
    const lease = this.#lease(input.accountId);
    lease.inFlight += 1;
    try {
      // Waiting for another request's extension is not a try: only this request's own failed
      // extensions count, so a crowd of requests never refuses each other while money is free.
      for (let tries = 0; tries < maxExtendTries; ) {
        if (lease.extending) {
          await lease.extending;
          continue;
        }
        if (this.#owing.has(input.accountId)) return { type: "insufficient", available: 0n, owes: true };
        const inLease = free(lease);
        const total = inLease + lease.outside;
        const amount = boundedHold(input, total);
        // A free request (worst case 0: a model priced at 0) holds nothing and is served on any balance.
        const enough = amount >= input.min && (amount > 0 || input.max === 0n);
        if (enough && amount <= inLease) {
          lease.reserved += amount;
          lease.lastUsed = Date.now();
          lease.inFlight += 1; // the request's own count, dropped by settle or release
          return { type: "held", amount, availableAfter: total - amount };
        }
        const need = (enough ? amount : max(input.min, 1n)) - inLease;
        const grown = await this.#extend(lease, need);
        if (this.#owing.has(input.accountId)) return { type: "insufficient", available: 0n, owes: true };
        if (!grown && boundedHold(input, free(lease) + lease.outside) < input.min)
          return { type: "insufficient", available: max(free(lease) + lease.outside, 0n) };
        if (!grown) tries += 1;
      }
      return { type: "insufficient", available: max(free(lease) + lease.outside, 0n) };
    } finally {
      lease.inFlight -= 1;
    }
  }

  /**
   * A refund or dispute left this account owing (this process booked it, or the poll saw it):
   * nothing more is held from its lease, which goes back as soon as nothing is in flight.
   */
  block(accountId: bigint): void {
    this.#owing.add(accountId);
    this.#returnIdle();
  }

  /** The request failed before anything was billed: its hold goes back to the lease. */
  release(accountId: bigint, amount: bigint): void {
    const lease = this.#leases.get(accountId);
    if (!lease) return;
    lease.reserved -= amount;
    lease.inFlight -= 1;
    lease.lastUsed = Date.now();
  }

  /**
   * Charges a served request: its hold goes back to the lease and the cost comes out of it,
   * up to the hold (plus the lease's free part when `chargeBeyondHold`, grown from the
   * balance if it must). What no one can cover is the shortfall, posted to the loss account.
   */
  async settle(
    settlement: Omit<LeaseSettlement, "leaseId" | "charged">,
    holdAmount: bigint,
    chargeBeyondHold: boolean,
  ): Promise<LeaseSettleResult> {
    const lease = this.#lease(settlement.accountId);
    // The hold stays reserved until the charge is known, so a top-up below sees the same lease.
    let coverable = holdAmount + (chargeBeyondHold ? max(free(lease), 0n) : 0n);
    if (chargeBeyondHold && settlement.cost > coverable && lease.outside > 0n) {
      await this.#extend(lease, min(settlement.cost - coverable, lease.outside));
      coverable = holdAmount + max(free(lease), 0n);
    }
    lease.reserved -= holdAmount;
    lease.inFlight -= 1;
    lease.lastUsed = Date.now();
    const charged = min(settlement.cost, coverable);
    lease.unwritten += charged;
    const full: LeaseSettlement = { ...settlement, leaseId: lease.leaseId, charged };
    // Its receipt, signed once this returns, may go with the batch that writes it.
    full.receipt?.queued();
    // Within the window the caller is answered before the settlement is stored anywhere, and it
    // goes straight to the ledger's next batch: a journal row would be inserted only for that
    // batch to delete it (a fifth of the database's work a request). A crash before the batch
    // commits leaves this request unbilled (its lease goes back whole), the bounded loss the docs
    // state. Past the window, the answer waits for its journal row.
    if (this.window.tryOpen(full.cost)) {
      this.#direct.set(full.requestId, full);
      this.#pending.push(full);
      this.#scheduleWrite();
    } else await this.#journal(full);
    return { charged, shortfall: settlement.cost - charged, availableAfter: free(lease) + lease.outside };
  }

  /**
   * Only once journaled may a batch write a settlement: the batch deletes its journal row, which
   * must be there to be deleted (a row committed after its batch would outlive the settlement).
   */
  #journal(full: LeaseSettlement): Promise<void> {
    const journaled = this.#options.journal.append(full).finally(() => {
      this.#pending.push(full);
      this.#scheduleWrite();
    });
    this.#lastJournaled = journaled;
    return journaled;
  }

  /**
   * A stream still relaying: its running count so far is journaled (charged up to its hold), so
   * a crash before it ends bills what it relayed instead of nothing.
   */
  progress(settlement: Omit<LeaseSettlement, "leaseId" | "charged">, holdAmount: bigint): void {
    const lease = this.#leases.get(settlement.accountId);
    if (!lease) return;
    this.#options.journal.progress({
      ...settlement,
      leaseId: lease.leaseId,
      charged: min(settlement.cost, holdAmount),
    });
  }

  /**
   * A balance as read without leases (`getInFlightBalance`), corrected for this process: what it
   * charged but has not written yet, and what its requests in flight reserve.
   */
  view(accountId: bigint, stored: { balance: bigint; held: bigint }): { balance: bigint; held: bigint } {
    const lease = this.#leases.get(accountId);
    if (!lease) return stored;
    return { balance: stored.balance - lease.unwritten, held: stored.held + lease.reserved };
  }

  /**
   * Resolves once everything settled so far is in the database, or after `maxWaitMs` while the
   * database cannot take it: a reader then sees the stored balance corrected by `view`, never a
   * hang behind a writer that is retrying.
   */
  async flush(maxWaitMs = flushWaitMs): Promise<void> {
    const deadline = Date.now() + maxWaitMs;
    this.#flushing += 1;
    try {
      if (this.#pending.length > 0) this.#writeNow();
      if (this.#lastJournaled && !(await settledBy(this.#lastJournaled, deadline))) return;
      while (!this.#stopped && (this.#pending.length > 0 || this.#writing)) {
        if (!this.#writing) this.#writeNow();
        const writing = this.#writing;
        if (writing && !(await settledBy(writing, deadline))) return;
      }
    } finally {
      this.#flushing -= 1;
    }
  }

  /** Settlements served and journaled but not in the database yet. */
  get unwritten(): number {
    return this.#pending.length + [...this.#leases.values()].filter((lease) => lease.unwritten > 0n).length;
  }

  /** Writes everything settled and returns every lease with nothing in flight, now rather than when idle. */
  async returnAll(maxWaitMs = flushWaitMs): Promise<void> {
    await this.flush(maxWaitMs);
    for (const lease of [...this.#leases.values()]) if (!lease.extending) await this.#return(lease);
  }

  /**
   * Clean shutdown: every settlement written and every lease returned, waiting at most
   * `maxWaitMs` for the database. What it could not write stays in the journal (replayed by
   * the next start or by a surviving replica) and its lease stays held until then.
   */
  async stop(maxWaitMs = stopWaitMs): Promise<void> {
    clearInterval(this.#timer);
    clearInterval(this.#owingTimer);
    const deadline = Date.now() + maxWaitMs;
    // A journal on a wedged database would hold these for ever: past this, the local file has them.
    this.#options.journal.stopping?.(Math.min(maxWaitMs, journalStopWaitMs));
    // Journaled before any wait for the database: a platform that follows SIGTERM with SIGKILL
    // within its grace period (Docker's is 10 s) loses none of the answers already out.
    await settledBy(this.#journalUnwritten(), deadline);
    await this.returnAll(Math.max(0, deadline - Date.now())).catch((error: unknown) =>
      log.error("returning leases at shutdown failed", { error }),
    );
    this.#stopped = true;
    if (this.#writeTimer) clearTimeout(this.#writeTimer);
    await this.#journalUnwritten(); // those settled during the wait
    this.#options.journal.close();
  }

  /**
   * At a clean stop, the answers sent straight to a batch the database has not written are
   * journaled, so a stop loses none of them: the window is what a kill -9 can lose, not a
   * SIGTERM. Their rows go with the batch that writes them; one that commits first leaves
   * them to a replay that finds them billed.
   */
  async #journalUnwritten(): Promise<void> {
    const unwritten = [...this.#direct.values()];
    this.#direct.clear();
    await Promise.all(
      unwritten.map((settlement) =>
        this.#journalDirect(settlement, "journaling an unwritten settlement at shutdown failed"),
      ),
    );
  }

  /** Journals a settlement that went straight to the ledger; its window slot is free once the journal has it. */
  #journalDirect(settlement: LeaseSettlement, failure: string): Promise<void> {
    return this.#options.journal
      .append(settlement)
      .finally(() => this.window.close(settlement.cost))
      .catch((error: unknown) => log.error(failure, { requestId: settlement.requestId, error }));
  }

  #lease(accountId: bigint): AccountLease {
    let lease = this.#leases.get(accountId);
    if (!lease) {
      lease = {
        accountId,
        leaseId: newId("lease"),
        leased: 0n,
        reserved: 0n,
        unwritten: 0n,
        outside: 0n,
        inFlight: 0,
        lastUsed: Date.now(),
        extending: undefined,
      };
      this.#leases.set(accountId, lease);
    }
    return lease;
  }

  /** Grows the lease by at least `need`; false (with a fresh view of the balance) when it cannot. */
  async #extend(lease: AccountLease, need: bigint): Promise<boolean> {
    let grown = false;
    const run = async () => {
      const result = await retryDeadlock(() =>
        extendLease(this.#options.database, {
          leaseId: lease.leaseId,
          accountId: lease.accountId,
          need,
          owner: this.#options.holds.instanceId,
          ttlSeconds: this.#options.ttlSeconds,
        }),
      );
      if (result.type === "insufficient") {
        lease.outside = result.free;
        if (result.owes) this.#owing.add(lease.accountId);
        return;
      }
      if (lease.leased === 0n) this.#options.holds.track(lease.leaseId);
      lease.leased += result.amount;
      lease.outside = result.freeAfter;
      grown = true;
    };
    const extending = run();
    lease.extending = extending;
    try {
      await extending;
    } finally {
      lease.extending = undefined;
    }
    return grown;
  }

  /**
   * The first settlement after a write waits up to `writeDelayMs` for company: one statement
   * for many requests costs the database about what one costs alone. That holds after every
   * write, not only an idle one: draining what arrived during a write at once would, at a steady
   * trickle, write a statement per request or two, back to back (measured at concurrency 1 on
   * PGlite: a batch every 5 ms, the engine's thread busy 1 to 2 ms per request).
   */
  #scheduleWrite(): void {
    if (this.#writing || this.#writeTimer) return;
    // A window half taken, in answers or in money, by settlements waiting for this batch does not
    // wait for more company: past the window, answers would wait for journal rows instead.
    const windowCrowded =
      this.#direct.size > 0 &&
      (this.#direct.size * 2 >= this.window.bound ||
        this.window.openMicrounits * 2n >= this.window.microunitBound);
    if (this.#options.writeDelayMs <= 0 || this.#pending.length >= maxBatch || windowCrowded) {
      this.#writeNow();
      return;
    }
    this.#writeTimer = setTimeout(() => this.#writeNow(), this.#options.writeDelayMs);
  }

  #writeNow(): void {
    if (this.#writeTimer) clearTimeout(this.#writeTimer);
    this.#writeTimer = undefined;
    this.#writing ??= this.#drain();
  }

  /** One batch, then more only while a reader is waiting for everything; `#scheduleWrite` decides the next. */
  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0 && !this.#stopped) {
        const batch = this.#pending.splice(0, maxBatch);
        const { left } = await writeSettlements(this.#options.database, batch, (written, result) =>
          this.#written(written, result),
        );
        if (left.length > 0) {
          // The database is unreachable: wait, then try again (refusals never come back here).
          this.#journalStranded(left);
          this.#pending.unshift(...left);
          await new Promise((resolve) => setTimeout(resolve, retryDelayMs).unref());
          continue;
        }
        if (this.#flushing === 0) break;
      }
    } finally {
      this.#writing = undefined;
    }
    // What arrived during the write is scheduled like any first settlement (at once when the
    // batch is full or there is no delay).
    if (this.#pending.length > 0 && !this.#stopped) this.#scheduleWrite();
  }

  /**
   * Settlements that went straight to a batch the database could not take: the journal gets them
   * now (its file when the database is gone too), so they outlive this process like the rest.
   * A row that lands after a later batch wrote its settlement outlives it, harmlessly: a replay
   * bills a request once (its usage record exists).
   */
  #journalStranded(left: readonly LeaseSettlement[]): void {
    for (const settlement of left) {
      if (!this.#direct.delete(settlement.requestId)) continue;
      void this.#journalDirect(settlement, "journaling a settlement the ledger could not take failed");
    }
  }

  #written(batch: LeaseSettlement[], result: SettleBatchResult): void {
    const touched = new Set<AccountLease>();
    for (const settlement of batch) {
      if (this.#direct.delete(settlement.requestId)) this.window.close(settlement.cost);
      const lease = this.#leases.get(settlement.accountId);
      if (lease?.leaseId !== settlement.leaseId) continue;
      lease.unwritten -= settlement.charged;
      touched.add(lease);
    }
    for (const lease of touched) {
      lease.leased -= result.leasesDrawn.get(lease.leaseId) ?? 0n;
      lease.outside = result.available.get(lease.accountId) ?? lease.outside;
    }
    this.#options.journal.written(batch);
  }

  #returnIdle(): void {
    const cutoff = Date.now() - this.#options.idleMs;
    for (const lease of this.#leases.values()) {
      if (lease.inFlight > 0 || lease.unwritten > 0n || lease.extending) continue;
      // An owing account's lease goes back at once, for its receivable to be collected.
      if (lease.lastUsed > cutoff && !this.#owing.has(lease.accountId)) continue;
      this.#return(lease).catch((error: unknown) => log.error("returning a lease failed", { error }));
    }
  }

  async #return(lease: AccountLease): Promise<void> {
    if (lease.inFlight > 0 || lease.unwritten > 0n) return;
    // Out of the map first: a request arriving meanwhile starts a new lease instead.
    this.#leases.delete(lease.accountId);
    this.#options.holds.forget(lease.leaseId);
    if (lease.leased > 0n) await returnLease(this.#options.database, lease.leaseId);
    if (this.#owing.has(lease.accountId))
      await this.#options.database.transaction((transaction) =>
        collectReceivables(transaction, lease.accountId),
      );
  }
}
