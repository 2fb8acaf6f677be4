import { log } from "../log";

const queued: (() => void)[] = [];

function runQueued(): void {
  for (const work of queued.splice(0)) {
    try {
      work();
    } catch (error) {
      log.error("bookkeeping after an answer failed", { error });
    }
  }
}

/**
 * Runs bookkeeping nobody's answer waits for (metrics, health and speed records, usage records)
 * in the event loop's next check phase. An answer is written in the microtasks that follow the
 * upstream's reply, so this runs after its bytes are on the socket and before the loop reads
 * anything new: a caller's next request still sees what this one recorded.
 */
export function afterAnswer(work: () => void): void {
  nextCheckPhase(work);
}

/**
 * Runs `work` in the next check phase: right after undici's write of an upstream request (queued
 * there when it was dispatched on a kept-alive socket), while the upstream works on it.
 */
export function whileUpstreamWorks(work: () => void): void {
  nextCheckPhase(work);
}

function nextCheckPhase(work: () => void): void {
  queued.push(work);
  if (queued.length === 1) setImmediate(runQueued);
}
