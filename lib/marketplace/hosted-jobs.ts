import type { DirectMessage } from "@pod-gateway/contracts/replica-protocol";
import { AgentJobError } from "./agent-jobs";

type JobMessage = Extract<DirectMessage, { type: "job" }>;

/** Runs a job on an agent this replica holds: what the local registry's dispatch does. */
export type RunLocal = (
  job: JobMessage,
  options: { signal: AbortSignal; onAgentTokens(tokens: Record<string, number>): void },
) => Promise<Response>;

interface HostedJob {
  id: string;
  caller: string;
  abort: AbortController;
  window: number;
  sent: number;
  acked: number;
  tokens: Record<string, number> | undefined;
  /** Wakes the pump waiting for the caller's ack. */
  wake: (() => void) | undefined;
}

/** Chunks are read from the agent's stream in pieces no bigger than this before they are published. */
const maxChunkBytes = 256 * 1024;

/**
 * Jobs other replicas sent to the agents this replica holds (the home's side). Each runs through
 * the local registry (its capacity check is the one reservation: a job for a full agent is refused
 * at once, and the caller's replica fails over), and its bytes are published back to the caller's
 * replica at most a window ahead of the caller's acks: past that the pump stops reading, the
 * agent's job stream fills, and the agent is asked to pause. A cancel, or the caller's replica
 * dying, aborts the job, which cancels it at the agent's backend and frees its slot.
 */
export class HostedJobs {
  readonly #jobs = new Map<string, HostedJob>();
  readonly #send: (replica: string, message: DirectMessage) => Promise<boolean>;
  readonly #run: RunLocal;

  constructor(send: (replica: string, message: DirectMessage) => Promise<boolean>, run: RunLocal) {
    this.#send = send;
    this.#run = run;
  }

  get size(): number {
    return this.#jobs.size;
  }

  start(message: JobMessage): void {
    if (this.#jobs.has(message.job)) return;
    const job: HostedJob = {
      id: message.job,
      caller: message.from,
      abort: new AbortController(),
      window: message.window,
      sent: 0,
      acked: 0,
      tokens: undefined,
      wake: undefined,
    };
    this.#jobs.set(job.id, job);
    job.abort.signal.addEventListener("abort", () => job.wake?.(), { once: true });
    this.#pump(job, message).catch(() => undefined);
  }

  cancel(jobId: string): void {
    this.#jobs.get(jobId)?.abort.abort(new AgentJobError("cancelled", "the caller went away"));
    this.#end(jobId);
  }

  ack(jobId: string, bytes: number): void {
    const job = this.#jobs.get(jobId);
    if (!job || bytes <= job.acked) return;
    job.acked = bytes;
    job.wake?.();
  }

  /** Jobs whose caller's replica is no longer live are cancelled: nobody will read their bytes. */
  abortUnless(isLive: (replica: string) => boolean): void {
    for (const job of [...this.#jobs.values()]) if (!isLive(job.caller)) this.cancel(job.id);
  }

  abortAll(): void {
    for (const id of [...this.#jobs.keys()]) this.cancel(id);
  }

  async #pump(job: HostedJob, message: JobMessage): Promise<void> {
    const reply = (payload: DirectMessage) => {
      if (this.#jobs.has(job.id)) this.#send(job.caller, payload).catch(() => undefined);
    };
    let response: Response;
    try {
      response = await this.#run(message, {
        signal: job.abort.signal,
        onAgentTokens: (tokens) => {
          job.tokens = tokens;
        },
      });
    } catch (error) {
      const code = error instanceof AgentJobError ? error.code : "unavailable";
      reply({ type: "fail", job: job.id, code, message: errorMessage(error) });
      this.#end(job.id);
      return;
    }
    const contentType = response.headers.get("content-type") ?? "application/json";
    const reader = response.body?.getReader();
    // An event stream's bytes go out as they come: its first byte is what its caller waits for.
    // Any other reply is read whole by the caller's replica, so its first bytes wait for the rest
    // of this turn of the loop: a reply whose end came with them (job_chunk and job_done in one
    // read of the agent's socket) crosses Redis as one message. They wait no longer: an early
    // start lets the caller's replica do its work on the answer while the end is still on its way.
    const holds = !contentType.includes("text/event-stream");
    const holdLimit = Math.min(maxChunkBytes, job.window);
    let held: Uint8Array[] = [];
    let heldBytes = 0;
    let started = false;
    let hold: { timer: NodeJS.Immediate; elapsed: Promise<undefined> } | undefined;
    const stopHolding = () => {
      if (hold) clearImmediate(hold.timer);
      hold = undefined;
    };
    /** Publishes what is held: the start (with the end too when the job is over), or a chunk. */
    const flush = (end?: { tokens?: Record<string, number> }) => {
      stopHolding();
      const data = Buffer.concat(held).toString("base64");
      job.sent += heldBytes;
      held = [];
      heldBytes = 0;
      if (!started) {
        started = true;
        reply({
          type: "start",
          job: job.id,
          status: response.status,
          contentType,
          data,
          ...(end ? { end } : {}),
        });
        return;
      }
      if (data.length > 0) reply({ type: "chunk", job: job.id, data });
      if (end) reply({ type: "end", job: job.id, ...end });
    };
    let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
    try {
      for (;;) {
        if (reader === undefined) break;
        pending ??= reader.read();
        const next = hold ? await Promise.race([pending, hold.elapsed]) : await pending;
        if (!this.#jobs.has(job.id)) {
          await reader.cancel().catch(() => undefined);
          return;
        }
        if (next === undefined) {
          // The rest of the reply did not come in the same turn: the start goes now.
          flush();
        } else {
          pending = undefined;
          if (next.done) break;
          for (let offset = 0; offset < next.value.byteLength; offset += maxChunkBytes) {
            const piece = next.value.subarray(offset, offset + maxChunkBytes);
            held.push(piece);
            heldBytes += piece.byteLength;
            if (!holds || started || heldBytes >= holdLimit) flush();
            else hold ??= holdForThisTurn();
          }
        }
        while (job.sent - job.acked >= job.window && this.#jobs.has(job.id))
          await new Promise<void>((resolve) => {
            job.wake = resolve;
          });
      }
      flush(job.tokens ? { tokens: job.tokens } : {});
    } catch (error) {
      // Bytes the agent sent before it failed are relayed first, as they would be without the hold.
      if (heldBytes > 0) flush();
      const code = error instanceof AgentJobError ? error.code : "disconnected";
      reply({ type: "fail", job: job.id, code, message: errorMessage(error) });
    } finally {
      stopHolding();
      this.#end(job.id);
    }
  }

  #end(jobId: string): void {
    const job = this.#jobs.get(jobId);
    if (!job) return;
    this.#jobs.delete(jobId);
    job.wake?.();
  }
}

/**
 * A promise (of undefined) kept until the loop's check phase: reads that are already possible
 * (bytes the agent sent in the same socket read) resolve before it.
 */
function holdForThisTurn(): { timer: NodeJS.Immediate; elapsed: Promise<undefined> } {
  let resolveElapsed: (value: undefined) => void = () => undefined;
  const elapsed = new Promise<undefined>((resolve) => {
    resolveElapsed = resolve;
  });
  return { timer: setImmediate(() => resolveElapsed(undefined)), elapsed };
}

function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 1000);
}
