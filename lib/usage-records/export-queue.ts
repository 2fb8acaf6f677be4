import { log } from "../log";

/** What one send of a batch came to: taken, worth trying again, or refused for good (a 4xx). */
export type SendResult = "sent" | "retry" | "refused";

/** Sends one batch; `signal` aborts it when a stopping gateway's drain time is up. */
export type SendBatch<T> = (batch: T[], signal: AbortSignal) => Promise<SendResult>;

export interface ExportQueueLimits {
  /** The most items waiting (the batch being sent included); an item beyond it is dropped. */
  maxQueued: number;
  maxBatch: number;
  /** How long the first item of a batch waits for others. */
  delayMs: number;
  /** The first wait after a failed send; each further failure doubles it, up to `maxBackoffMs`. */
  firstBackoffMs: number;
  maxBackoffMs: number;
}

export type DropReason = "queue_full" | "refused" | "stopped";

/** What a queue tells its owner (the metrics): items dropped, sends failed and to be tried again. */
export interface ExportQueueEvents {
  dropped?(count: number, reason: DropReason): void;
  failed?(): void;
}

/**
 * Items on their way to a receiver that may be slow or down, off the request's path: `add`
 * only pushes to an array. One send at a time, in order; a failed batch is sent again after a
 * growing wait, and what arrives meanwhile waits behind it, up to `maxQueued` (then dropped and
 * counted, so a receiver that is down costs memory once, not forever). `close` sends what is
 * left, for at most the time it is given.
 */
export class ExportQueue<T> {
  readonly #name: string;
  readonly #send: SendBatch<T>;
  readonly #limits: ExportQueueLimits;
  readonly #events: ExportQueueEvents;
  #pending: T[] = [];
  #timer: NodeJS.Timeout | undefined;
  #draining: Promise<void> | undefined;
  #closing = false;
  #closed = false;
  #full = false;
  readonly #stop = new AbortController();

  constructor(name: string, send: SendBatch<T>, limits: ExportQueueLimits, events: ExportQueueEvents = {}) {
    this.#name = name;
    this.#send = send;
    this.#limits = limits;
    this.#events = events;
  }

  /** Items waiting, the batch in flight included. */
  get queued(): number {
    return this.#pending.length;
  }

  /** Queues `item`; false when it was dropped (the queue is full, or closed). */
  add(item: T): boolean {
    if (this.#closed || this.#pending.length >= this.#limits.maxQueued) {
      if (!this.#full && !this.#closed)
        log.warn("usage records are being dropped: the receiver is not keeping up", {
          destination: this.#name,
          queued: this.#pending.length,
        });
      this.#full = true;
      this.#events.dropped?.(1, this.#closed ? "stopped" : "queue_full");
      return false;
    }
    this.#pending.push(item);
    if (this.#draining) return true;
    if (this.#closing || this.#pending.length >= this.#limits.maxBatch) this.#startDraining();
    else this.#timer ??= setTimeout(() => this.#startDraining(), this.#limits.delayMs).unref();
    return true;
  }

  /** Sends what is queued, trying for at most `withinMs`; what is still queued then is dropped and logged. */
  async close(withinMs: number): Promise<void> {
    if (this.#closing) return this.#draining;
    this.#closing = true;
    const deadline = setTimeout(() => this.#stop.abort(), withinMs).unref();
    if (this.#pending.length > 0) this.#startDraining();
    while (this.#draining) await this.#draining;
    clearTimeout(deadline);
    this.#closed = true;
    if (this.#pending.length > 0) {
      log.warn("usage records not sent before the gateway stopped", {
        destination: this.#name,
        count: this.#pending.length,
      });
      this.#events.dropped?.(this.#pending.length, "stopped");
      this.#pending = [];
    }
  }

  #startDraining(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
      // Items that came while the last send was failing for good wait for their own delay.
      if (this.#pending.length > 0 && !this.#stop.signal.aborted) this.#startDrainingLater();
    });
  }

  #startDrainingLater(): void {
    if (this.#closing) this.#startDraining();
    else this.#timer ??= setTimeout(() => this.#startDraining(), this.#limits.delayMs).unref();
  }

  async #drain(): Promise<void> {
    let backoff = this.#limits.firstBackoffMs;
    while (this.#pending.length > 0 && !this.#stop.signal.aborted) {
      const batch = this.#pending.slice(0, this.#limits.maxBatch);
      const result = await this.#send(batch, this.#stop.signal).catch((): SendResult => "retry");
      if (result === "retry") {
        this.#events.failed?.();
        await this.#wait(backoff);
        backoff = Math.min(backoff * 2, this.#limits.maxBackoffMs);
        continue;
      }
      this.#pending.splice(0, batch.length);
      backoff = this.#limits.firstBackoffMs;
      if (this.#pending.length < this.#limits.maxQueued) this.#full = false;
      if (result === "refused") {
        log.warn("usage records refused by their receiver: dropped", {
          destination: this.#name,
          count: batch.length,
        });
        this.#events.dropped?.(batch.length, "refused");
      }
    }
  }

  /** Waits `ms` (a little more or less, so many replicas retrying do not knock in step), or until stopped. */
  #wait(ms: number): Promise<void> {
    const signal = this.#stop.signal;
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms * (0.8 + Math.random() * 0.4)).unref();
      signal.addEventListener("abort", done);
    });
  }
}
