/**
 * Runs `flush` once for many calls: on the next turn of the loop when a change is urgent
 * (`soon`), otherwise at most every `delayMs` (`later`). Replicas hear a burst of changes as one
 * message instead of one each.
 */
export class CoalescedFlush {
  readonly #flush: () => void;
  readonly #delayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #soon = false;

  constructor(flush: () => void, delayMs: number) {
    this.#flush = flush;
    this.#delayMs = delayMs;
  }

  soon(): void {
    if (this.#soon) return;
    this.#soon = true;
    setImmediate(() => this.#run());
  }

  later(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => this.#run(), this.#delayMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #run(): void {
    this.stop();
    this.#soon = false;
    this.#flush();
  }
}
