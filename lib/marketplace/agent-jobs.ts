import { randomUUID } from "node:crypto";
import type { GatewayMessage } from "@pod-gateway/contracts/agent-protocol";
import type { HostAttestation } from "@pod-gateway/contracts/usage-receipt";
import { log } from "../log";
import type { DispatchOptions } from "../providers/candidate";
import { openSpan, type Span, traceparentOf } from "../telemetry/tracing";
import type { JobFeed } from "./job-sink";
import type { AgentSinkTransport, AgentTransport, MarketplaceOffer } from "./registry";

const missedDeadline = "the agent missed the job deadline";

/** What the job table needs from the socket it runs over. */
export interface JobChannel {
  send(message: GatewayMessage): void;
  /** Stops reading the socket (TCP backpressure), for an agent that ignores `job_pause`. */
  pauseReading(): void;
  resumeReading(): void;
}

export interface AgentJobsOptions {
  deadlineMs: number;
  /**
   * Time the agent has to send a job's first chunk (its status and headers): past it the job
   * fails before any byte reached the caller, so routing tries the next candidate. Capped by
   * `deadlineMs`.
   */
  firstChunkMs?: number;
  /** Time a started job may go without a chunk while the gateway has not paused it. */
  stallMs?: number;
  /** The agent broke a job it had accepted: no first chunk in time, a stall, a cut stream. */
  onBroken?(breach: JobBreach): void;
  /** Bytes queued for one slow caller before the agent is asked to pause that job. */
  highWaterMarkBytes?: number;
  /** The agent broke the protocol on a job; `fatal` when the connection cannot be trusted any more. */
  onViolation?(violation: JobViolation): void;
}

export interface JobViolation {
  jobId: string;
  reason: string;
  /** A frame for a job this connection was never given: the agent is answering blind. */
  fatal: boolean;
}

export interface JobBreach {
  jobId: string;
  kind: "first_chunk_missed" | "stalled" | "stream_cut";
  /** In words: what happened and how long the caller waited. */
  detail: string;
  /** From the job's dispatch to the breach. */
  elapsedMs: number;
  /** Body bytes the agent had sent. */
  bytes: number;
}

/** How a job ended, remembered a while so late frames can be told from frames for jobs never sent. */
type Ending = "done" | "ended";
/** Ended job ids remembered per connection. */
const rememberedEndings = 1024;

/** Past this many times the high-water mark the socket itself stops being read. */
const hardLimitFactor = 8;

interface Job {
  id: string;
  started: boolean;
  /** The agent answered: makes where its bytes go and settles the dispatch (throws when no response can carry it). */
  open(status: number, contentType: string): JobFeed;
  reject(error: Error): void;
  feed: JobFeed | undefined;
  contentType: string;
  deadline: NodeJS.Timeout;
  /** Fires when the agent is silent too long: before its first chunk, then between chunks. */
  watch: NodeJS.Timeout;
  startedAt: number;
  bytes: number;
  pausedByUs: boolean;
  ended: boolean;
  onAgentTokens: ((tokens: Record<string, number>) => void) | undefined;
  onAgentAttestation: ((attestation: HostAttestation) => void) | undefined;
  /** The job's span while tracing: from the job message to the agent's last frame. */
  span: Span | undefined;
  cleanup(): void;
}

export class AgentJobError extends Error {
  override readonly name = "AgentJobError";
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * The jobs in flight on one agent connection. A job becomes a Response once its first chunk
 * arrives (an error before that lets routing fail over); its body is fed by later chunks and
 * read at the caller's pace: when a caller falls behind, the agent is asked to pause that job,
 * and if it keeps sending anyway the socket is no longer read, so memory stays bounded.
 */
export class AgentJobs {
  readonly #jobs = new Map<string, Job>();
  readonly #endings = new Map<string, Ending>();
  readonly #onViolation: ((violation: JobViolation) => void) | undefined;
  readonly #channel: JobChannel;
  readonly #deadlineMs: number;
  readonly #firstChunkMs: number;
  readonly #stallMs: number;
  readonly #onBroken: ((breach: JobBreach) => void) | undefined;
  readonly #highWaterMark: number;
  #socketPaused = false;

  constructor(channel: JobChannel, options: AgentJobsOptions) {
    this.#channel = channel;
    this.#deadlineMs = options.deadlineMs;
    this.#firstChunkMs = Math.min(options.firstChunkMs ?? options.deadlineMs, options.deadlineMs);
    this.#stallMs = options.stallMs ?? options.deadlineMs;
    this.#onBroken = options.onBroken;
    this.#highWaterMark = options.highWaterMarkBytes ?? 256 * 1024;
    this.#onViolation = options.onViolation;
  }

  get size(): number {
    return this.#jobs.size;
  }

  has(jobId: string): boolean {
    return this.#jobs.has(jobId);
  }

  /** Runs a job whose bytes are read as a Response (what routing reads). */
  readonly transport: AgentTransport = (offer, body, options) =>
    new Promise<Response>((resolve, reject) => {
      this.#submit(offer, body, options, reject, (job, status, contentType) => {
        const holder: { controller?: ReadableStreamDefaultController<Uint8Array> } = {};
        const stream = new ReadableStream<Uint8Array>(
          {
            start: (controller) => {
              holder.controller = controller;
            },
            pull: () => this.#pulled(job),
            cancel: () => this.#cancel(job.id, new AgentJobError("cancelled", "the caller stopped reading")),
          },
          { highWaterMark: this.#highWaterMark, size: (chunk) => chunk.byteLength },
        );
        resolve(new Response(stream, { status, headers: { "content-type": contentType } }));
        if (!holder.controller) throw new Error("the stream started without a controller");
        return holder.controller;
      });
    });

  /** Runs a job whose bytes go straight to `sink` (a job another replica asked for): no stream in between. */
  readonly sinkTransport: AgentSinkTransport = (offer, body, options, sink) =>
    new Promise<void>((resolve, reject) => {
      this.#submit(offer, body, options, reject, (job, status, contentType) => {
        const feed = sink.open(status, contentType, () => this.#pulled(job));
        resolve();
        return feed;
      });
    });

  #submit(
    offer: MarketplaceOffer,
    body: string,
    options: DispatchOptions,
    reject: (error: Error) => void,
    open: (job: Job, status: number, contentType: string) => JobFeed,
  ): void {
    if (options.signal.aborted) {
      reject(options.signal.reason instanceof Error ? options.signal.reason : new Error("aborted"));
      return;
    }
    let request: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error();
      request = parsed as Record<string, unknown>;
    } catch {
      reject(new Error("job body is not a JSON object"));
      return;
    }
    const id = randomUUID();
    const span = openSpan("agent job", {
      "pod.job_id": id,
      "pod.provider_id": offer.providerId,
      "gen_ai.request.model": offer.modelId,
    });
    const traceparent = traceparentOf(span);
    const onAbort = () => this.#cancel(id, new AgentJobError("cancelled", "the caller went away"));
    const job: Job = {
      id,
      started: false,
      open: (status, contentType) => open(job, status, contentType),
      reject,
      feed: undefined,
      contentType: isStreamRequest(request) ? "text/event-stream" : "application/json",
      deadline: setTimeout(
        () => this.#cancel(id, new AgentJobError("backend_timeout", missedDeadline)),
        this.#deadlineMs,
      ),
      watch: setTimeout(() => this.#silent(id), this.#firstChunkMs),
      startedAt: performance.now(),
      bytes: 0,
      pausedByUs: false,
      ended: false,
      onAgentTokens: options.onAgentTokens,
      onAgentAttestation: options.onAgentAttestation,
      span,
      cleanup: () => options.signal.removeEventListener("abort", onAbort),
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    this.#jobs.set(id, job);
    this.#channel.send({
      type: "job",
      job_id: id,
      model_id: offer.modelId,
      request,
      format: offer.dialect,
      deadline_ms: this.#deadlineMs,
      ...(traceparent ? { traceparent } : {}),
    });
  }

  chunk(jobId: string, data: Buffer, status?: number, contentType?: string): void {
    const job = this.#live(jobId, "job_chunk");
    if (!job) return;
    if (!job.started && !this.#start(job, status ?? 200, contentType ?? job.contentType)) return;
    if (data.length === 0 || !job.feed) return;
    job.bytes += data.length;
    job.feed.enqueue(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    const desired = job.feed.desiredSize ?? 0;
    if (desired <= 0 && !job.pausedByUs) {
      job.pausedByUs = true;
      // A paused agent is silent by our asking: no stall is counted until it is resumed.
      clearTimeout(job.watch);
      this.#channel.send({ type: "job_pause", job_id: job.id });
    } else if (!job.pausedByUs) job.watch.refresh();
    if (desired < -this.#highWaterMark * hardLimitFactor && !this.#socketPaused) {
      this.#socketPaused = true;
      this.#channel.pauseReading();
    }
  }

  done(
    jobId: string,
    tokens: Record<string, number> | undefined,
    attestation?: HostAttestation | undefined,
  ): void {
    const job = this.#live(jobId, "job_done");
    if (!job) return;
    if (attestation) job.onAgentAttestation?.(attestation);
    if (tokens) {
      log.debug("agent job done", { job_id: jobId, agent_tokens: tokens });
      job.onAgentTokens?.(tokens);
    }
    if (!job.started && !this.#start(job, 200, job.contentType)) return;
    this.#finish(job, "done");
    job.feed?.close();
  }

  /** A frame naming this job failed the protocol schema: the job fails cleanly, the agent is told. */
  malformed(jobId: string, reason: string): void {
    if (!this.#jobs.has(jobId)) return;
    this.#onViolation?.({ jobId, reason: `malformed frame: ${reason}`, fatal: false });
    this.#cancel(jobId, new AgentJobError("protocol_error", `the agent sent a malformed frame (${reason})`));
  }

  error(jobId: string, code: string, message: string): void {
    const job = this.#live(jobId, "job_error");
    if (!job) return;
    // The agent times its backend out with the deadline this gateway sent it, so its timer
    // and ours race: either way the caller is told the same thing.
    const told = code === "backend_timeout" ? missedDeadline : `agent job failed (${code}): ${message}`;
    if (job.started) this.#breach(job, "stream_cut", `the agent ended the answer with an error (${code})`);
    this.#fail(jobId, new AgentJobError(code, told), false);
  }

  /** The connection closed: every job in flight fails (mid-stream: an in-band error for its caller). */
  failAll(reason: string): void {
    for (const job of [...this.#jobs.values()]) {
      if (job.started)
        this.#breach(job, "stream_cut", `the agent's connection closed mid-answer (${reason})`);
      this.#fail(job.id, new AgentJobError("disconnected", reason), false);
    }
  }

  /** The agent sent nothing for too long: before its first chunk the caller fails over, after it the answer is cut. */
  #silent(jobId: string): void {
    const job = this.#jobs.get(jobId);
    if (!job || job.ended) return;
    if (!job.started) {
      this.#breach(
        job,
        "first_chunk_missed",
        `the agent sent no first chunk within ${this.#firstChunkMs} ms`,
      );
      this.#cancel(
        jobId,
        new AgentJobError("first_chunk_timeout", `the agent sent nothing within ${this.#firstChunkMs} ms`),
      );
      return;
    }
    this.#breach(job, "stalled", `the agent sent nothing for ${this.#stallMs} ms mid-answer`);
    this.#cancel(jobId, new AgentJobError("stalled", `the agent sent nothing for ${this.#stallMs} ms`));
  }

  #breach(job: Job, kind: JobBreach["kind"], detail: string): void {
    this.#onBroken?.({
      jobId: job.id,
      kind,
      detail,
      elapsedMs: Math.round(performance.now() - job.startedAt),
      bytes: job.bytes,
    });
  }

  /**
   * The job a frame is for, if it is still running. Frames for a job that ended are dropped (after
   * the agent's own job_done they are a violation; after a cancel they are the race it is); a frame
   * for a job never sent on this connection is a fatal violation.
   */
  #live(jobId: string, type: string): Job | undefined {
    const job = this.#jobs.get(jobId);
    if (job && !job.ended) return job;
    const ending = this.#endings.get(jobId);
    if (ending === "done") this.#onViolation?.({ jobId, reason: `${type} after job_done`, fatal: false });
    else if (ending === undefined)
      this.#onViolation?.({
        jobId,
        reason: `${type} for a job this connection was never given`,
        fatal: true,
      });
    return undefined;
  }

  /** The job's feed, once its first chunk came; false when the agent's status or headers cannot make a response. */
  #start(job: Job, status: number, contentType: string): boolean {
    job.started = true;
    clearTimeout(job.watch);
    job.watch = setTimeout(() => this.#silent(job.id), this.#stallMs);
    try {
      job.feed = job.open(status, contentType);
    } catch (error) {
      // The schema bounds both already; this keeps a throw out of the socket handler regardless.
      job.started = false;
      this.#onViolation?.({
        jobId: job.id,
        reason: "a first chunk no HTTP response can carry",
        fatal: false,
      });
      this.#cancel(
        job.id,
        new AgentJobError("protocol_error", `the agent's reply is not a valid response (${String(error)})`),
      );
      return false;
    }
    return true;
  }

  /** The job's reader has room again: the agent may send, and the socket be read. */
  #pulled(job: Job): void {
    if (job.pausedByUs && !job.ended) {
      job.pausedByUs = false;
      job.watch = setTimeout(() => this.#silent(job.id), this.#stallMs);
      this.#channel.send({ type: "job_resume", job_id: job.id });
    }
    this.#maybeResumeSocket();
  }

  #cancel(jobId: string, error: AgentJobError): void {
    this.#fail(jobId, error, true);
  }

  #fail(jobId: string, error: AgentJobError, tellAgent: boolean): void {
    const job = this.#jobs.get(jobId);
    if (!job) return;
    this.#finish(job);
    if (tellAgent) this.#channel.send({ type: "job_cancel", job_id: jobId });
    if (!job.started) job.reject(error);
    else job.feed?.error(error);
  }

  #finish(job: Job, ending: Ending = "ended"): void {
    job.ended = true;
    this.#endings.set(job.id, ending);
    if (this.#endings.size > rememberedEndings) {
      const oldest = this.#endings.keys().next();
      if (!oldest.done) this.#endings.delete(oldest.value);
    }
    clearTimeout(job.deadline);
    clearTimeout(job.watch);
    job.span?.setAttribute("pod.job_ending", ending);
    job.span?.end();
    job.cleanup();
    this.#jobs.delete(job.id);
    this.#maybeResumeSocket();
  }

  #maybeResumeSocket(): void {
    if (!this.#socketPaused) return;
    for (const job of this.#jobs.values()) {
      if ((job.feed?.desiredSize ?? 0) < -this.#highWaterMark * hardLimitFactor) return;
    }
    this.#socketPaused = false;
    this.#channel.resumeReading();
  }
}

function isStreamRequest(request: Record<string, unknown>): boolean {
  return request.stream === true;
}
