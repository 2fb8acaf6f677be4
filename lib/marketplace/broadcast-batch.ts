import { CoalescedFlush } from "./coalesced-flush";

/** Items queued at most, between two sends: past it they are dropped (a Redis blip's worth). */
const maxQueued = 1000;

/**
 * Items for every other replica, sent in one message per flush: at once (the next turn of the
 * loop) for an urgent one, otherwise at most every `delayMs`. One broadcast per request, heard
 * by every replica, was bus traffic on the path of every job.
 */
export class BroadcastBatch<T> {
  readonly #send: (items: T[]) => void;
  readonly #flush: CoalescedFlush;
  #items: T[] = [];

  constructor(send: (items: T[]) => void, delayMs: number) {
    this.#send = send;
    this.#flush = new CoalescedFlush(() => this.#run(), delayMs);
  }

  add(item: T, urgent: boolean): void {
    if (this.#items.length < maxQueued) this.#items.push(item);
    if (urgent) this.#flush.soon();
    else this.#flush.later();
  }

  stop(): void {
    this.#flush.stop();
  }

  #run(): void {
    const items = this.#items;
    this.#items = [];
    if (items.length > 0) this.#send(items);
  }
}
