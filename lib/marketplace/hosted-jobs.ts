import type { DirectMessage } from "@pod-gateway/contracts/replica-protocol";
import type { HostAttestation } from "@pod-gateway/contracts/usage-receipt";
import { withTraceparent } from "../telemetry/tracing";
import { AgentJobError } from "./agent-jobs";
import type { JobFeed, JobSink } from "./job-sink";

type JobMessage = Extract<DirectMessage, { type: "job" }>;

/** Runs a job on an agent this replica holds, its bytes fed to `sink`: what the local registry's dispatchTo does. */
export type RunLocal = (
  job: JobMessage,
  options: {
    signal: AbortSignal;
    onAgentTokens(tokens: Record<string, number>): void;
    onAgentAttestation(attestation: HostAttestation): void;
  },
  sink: JobSink,
) => Promise<void>;

interface HostedJob {
  id: string;
  caller: string;
  abort: AbortController;
  window: number;
  sent: number;
  acked: number;
  tokens: Record<string, number> | undefined;
  attestation: HostAttestation | undefined;
  /** Set once the agent answered. */
  answer: { status: number; contentType: string; holds: boolean; pull: () => void } | undefined;
  /** The start message went out. */
  started: boolean;
  /** Bytes from the agent not published yet (past the window, or held for the rest of this turn). */
  held: Uint8Array[];
  heldBytes: number;
  hold: NodeJS.Immediate | undefined;
  /** The agent's reply is complete: the end goes once the held bytes are out. */
  closing: boolean;
  /** A message of it was not known to be delivered, and the caller was told the job failed. */
  lost: boolean;
}

/** What the agent said at the end of a job, for the caller's replica (its counts, its attestation). */
function endOf(job: HostedJob) {
  return {
    ...(job.tokens ? { tokens: job.tokens } : {}),
    ...(job.attestation ? { attestation: job.attestation } : {}),
  };
}

/** Chunks are published in pieces no bigger than this. */
const maxChunkBytes = 256 * 1024;

/**
 * Jobs other replicas sent to the agents this replica holds (the home's side). Each runs through
 * the local registry (its capacity check is the one reservation: a job for a full agent is refused
 * at once, and the caller's replica fails over), and the agent's bytes are published back to the
 * caller's replica as they come, with no stream in between, at most a window ahead of the
 * caller's acks: past that they are held here, and the agent is asked to pause (if it goes on, its
 * socket stops being read). A cancel, or the caller's replica dying, aborts the job, which cancels
 * it at the agent's backend and frees its slot.
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
      attestation: undefined,
      answer: undefined,
      started: false,
      held: [],
      heldBytes: 0,
      hold: undefined,
      closing: false,
      lost: false,
    };
    this.#jobs.set(job.id, job);
    const options = {
      signal: job.abort.signal,
      onAgentTokens: (tokens: Record<string, number>) => {
        job.tokens = tokens;
      },
      onAgentAttestation: (attestation: HostAttestation) => {
        job.attestation = attestation;
      },
    };
    // The agent job's span (opened as the job is sent) continues the caller's replica's trace.
    withTraceparent(message.traceparent, () =>
      this.#run(message, options, {
        open: (status, contentType, pull) => this.#open(job, status, contentType, pull),
      }),
    ).catch((error: unknown) => this.#fail(job, error));
  }

  cancel(jobId: string): void {
    const job = this.#jobs.get(jobId);
    if (job) this.#abort(job, new AgentJobError("cancelled", "the caller went away"));
  }

  ack(jobId: string, bytes: number): void {
    const job = this.#jobs.get(jobId);
    if (!job || bytes <= job.acked) return;
    job.acked = Math.min(bytes, job.sent);
    this.#drain(job);
    if (this.#jobs.has(job.id) && room(job) > 0) job.answer?.pull();
  }

  /** Jobs whose caller's replica is no longer live are cancelled: nobody will read their bytes. */
  abortUnless(isLive: (replica: string) => boolean): void {
    for (const job of [...this.#jobs.values()]) if (!isLive(job.caller)) this.cancel(job.id);
  }

  abortAll(): void {
    for (const id of [...this.#jobs.keys()]) this.cancel(id);
  }

  #open(job: HostedJob, status: number, contentType: string, pull: () => void): JobFeed {
    // An event stream's bytes go out as they come: its first byte is what its caller waits for.
    // Any other reply is read whole by the caller's replica, so its first bytes wait for the rest
    // of this turn of the loop: a reply whose end came with them (job_chunk and job_done in one
    // read of the agent's socket) crosses Redis as one message. They wait no longer: an early
    // start lets the caller's replica do its work on the answer while the end is still on its way.
    job.answer = { status, contentType, holds: !contentType.includes("text/event-stream"), pull };
    return {
      enqueue: (chunk) => {
        if (!this.#jobs.has(job.id) || chunk.byteLength === 0) return;
        job.held.push(chunk);
        job.heldBytes += chunk.byteLength;
        this.#drain(job);
      },
      close: () => {
        if (!this.#jobs.has(job.id)) return;
        job.closing = true;
        this.#drain(job);
      },
      error: (reason) => this.#fail(job, reason),
      get desiredSize() {
        return room(job) - job.heldBytes;
      },
    };
  }

  /** Publishes what the window and the hold allow: the start, chunks, and the end once all is out. */
  #drain(job: HostedJob): void {
    const answer = job.answer;
    if (!answer || !this.#jobs.has(job.id)) return;
    if (!job.started) {
      const holding = answer.holds && !job.closing && job.heldBytes < Math.min(maxChunkBytes, job.window);
      if (holding) {
        job.hold ??= setImmediate(() => {
          job.hold = undefined;
          this.#publishStart(job);
          this.#drain(job);
        });
        return;
      }
      this.#publishStart(job);
      if (!this.#jobs.has(job.id)) return;
    }
    while (job.heldBytes > 0 && room(job) > 0)
      this.#reply(job, { type: "chunk", job: job.id, data: this.#take(job, room(job)) });
    if (job.closing && job.heldBytes === 0) {
      this.#reply(job, { type: "end", job: job.id, ...endOf(job) });
      this.#end(job);
    }
  }

  /** The start, with the first bytes (and the end too when they were all and the reply is over). */
  #publishStart(job: HostedJob): void {
    const answer = job.answer;
    if (!answer || job.started) return;
    if (job.hold) clearImmediate(job.hold);
    job.hold = undefined;
    job.started = true;
    const data = this.#take(job, room(job));
    const end = job.closing && job.heldBytes === 0;
    this.#reply(job, {
      type: "start",
      job: job.id,
      status: answer.status,
      contentType: answer.contentType,
      data,
      ...(end ? { end: endOf(job) } : {}),
    });
    if (end) this.#end(job);
  }

  /** Held bytes up to `limit` and one piece's size, as base64; what is taken counts as sent. */
  #take(job: HostedJob, limit = maxChunkBytes): string {
    const most = Math.min(limit, maxChunkBytes);
    const pieces: Uint8Array[] = [];
    let bytes = 0;
    while (job.held.length > 0 && bytes < most) {
      const first = job.held[0] as Uint8Array;
      const fits = Math.min(first.byteLength, most - bytes);
      pieces.push(first.subarray(0, fits));
      bytes += fits;
      if (fits === first.byteLength) job.held.shift();
      else job.held[0] = first.subarray(fits);
    }
    job.heldBytes -= bytes;
    job.sent += bytes;
    return Buffer.concat(pieces).toString("base64");
  }

  #fail(job: HostedJob, error: unknown): void {
    if (!this.#jobs.has(job.id)) return;
    // Bytes the agent sent before it failed are relayed first, window or not.
    if (job.answer && !job.started) this.#publishStart(job);
    while (job.heldBytes > 0) this.#reply(job, { type: "chunk", job: job.id, data: this.#take(job) });
    const code = error instanceof AgentJobError ? error.code : job.started ? "disconnected" : "unavailable";
    this.#reply(job, { type: "fail", job: job.id, code, message: errorMessage(error) });
    this.#end(job);
  }

  #reply(job: HostedJob, message: DirectMessage): void {
    if (!this.#jobs.has(job.id)) return;
    this.#send(job.caller, message).then(
      (delivered) => {
        if (!delivered) this.#lost(job, message);
      },
      () => this.#lost(job, message),
    );
  }

  /**
   * Part of a reply was not known to reach the caller's replica: its caller would read a reply
   * with a hole in it, or wait for an end that never comes. The job ends here (cancelled at the
   * agent if it is still running) and the caller is told it failed, which it reads as an
   * in-band error; one that already had the whole reply ignores it.
   */
  #lost(job: HostedJob, message: DirectMessage): void {
    if (message.type === "fail" || job.lost) return;
    job.lost = true;
    if (this.#jobs.has(job.id))
      this.#abort(job, new AgentJobError("disconnected", "the reply could not be passed on"));
    const fail: DirectMessage = {
      type: "fail",
      job: job.id,
      code: "disconnected",
      message: "part of the agent's reply was lost between gateway replicas",
    };
    this.#send(job.caller, fail).catch(() => undefined);
  }

  /** Stops a running job at the agent; gone first, since what the abort makes the agent's side report is for nobody. */
  #abort(job: HostedJob, reason: AgentJobError): void {
    this.#end(job);
    job.abort.abort(reason);
  }

  #end(job: HostedJob): void {
    if (job.hold) clearImmediate(job.hold);
    job.hold = undefined;
    this.#jobs.delete(job.id);
  }
}

/** Bytes the job may still publish before the caller's acks catch up. */
function room(job: HostedJob): number {
  return job.window - (job.sent - job.acked);
}

function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 1000);
}
