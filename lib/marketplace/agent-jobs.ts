import { randomUUID } from "node:crypto";
import { log } from "../log";
import type { GatewayMessage } from "./agent-protocol";
import type { AgentTransport } from "./agent-transport";

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
  /** Bytes queued for one slow caller before the agent is asked to pause that job. */
  highWaterMarkBytes?: number;
}

/** Past this many times the high-water mark the socket itself stops being read. */
const hardLimitFactor = 8;

interface Job {
  id: string;
  started: boolean;
  resolve(response: Response): void;
  reject(error: Error): void;
  controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  contentType: string;
  deadline: NodeJS.Timeout;
  pausedByUs: boolean;
  ended: boolean;
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
  readonly #channel: JobChannel;
  readonly #deadlineMs: number;
  readonly #highWaterMark: number;
  #socketPaused = false;

  constructor(channel: JobChannel, options: AgentJobsOptions) {
    this.#channel = channel;
    this.#deadlineMs = options.deadlineMs;
    this.#highWaterMark = options.highWaterMarkBytes ?? 256 * 1024;
  }

  get size(): number {
    return this.#jobs.size;
  }

  readonly transport: AgentTransport = (offer, body, options) =>
    new Promise<Response>((resolve, reject) => {
      if (options.signal.aborted) {
        reject(options.signal.reason instanceof Error ? options.signal.reason : new Error("aborted"));
        return;
      }
      let request: unknown;
      try {
        request = JSON.parse(body);
      } catch {
        reject(new Error("job body is not JSON"));
        return;
      }
      const id = randomUUID();
      const onAbort = () => this.#cancel(id, new AgentJobError("cancelled", "the caller went away"));
      const job: Job = {
        id,
        started: false,
        resolve,
        reject,
        controller: undefined,
        contentType: isStreamRequest(request) ? "text/event-stream" : "application/json",
        deadline: setTimeout(
          () => this.#cancel(id, new AgentJobError("backend_timeout", missedDeadline)),
          this.#deadlineMs,
        ),
        pausedByUs: false,
        ended: false,
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
      });
    });

  chunk(jobId: string, data: Buffer, status?: number, contentType?: string): void {
    const job = this.#jobs.get(jobId);
    if (!job || job.ended) return;
    if (!job.started) this.#start(job, status ?? 200, contentType ?? job.contentType);
    if (data.length === 0 || !job.controller) return;
    job.controller.enqueue(new Uint8Array(data));
    const desired = job.controller.desiredSize ?? 0;
    if (desired <= 0 && !job.pausedByUs) {
      job.pausedByUs = true;
      this.#channel.send({ type: "job_pause", job_id: job.id });
    }
    if (desired < -this.#highWaterMark * hardLimitFactor && !this.#socketPaused) {
      this.#socketPaused = true;
      this.#channel.pauseReading();
    }
  }

  done(jobId: string, tokens: Record<string, number> | undefined): void {
    const job = this.#jobs.get(jobId);
    if (!job) return;
    if (tokens) log.debug("agent job done", { job_id: jobId, agent_tokens: tokens });
    if (!job.started) this.#start(job, 200, job.contentType);
    this.#finish(job);
    job.controller?.close();
  }

  error(jobId: string, code: string, message: string): void {
    // The agent times its backend out with the deadline this gateway sent it, so its timer
    // and ours race: either way the caller is told the same thing.
    const told = code === "backend_timeout" ? missedDeadline : `agent job failed (${code}): ${message}`;
    this.#fail(jobId, new AgentJobError(code, told), false);
  }

  /** The connection closed: every job in flight fails (mid-stream: an in-band error for its caller). */
  failAll(reason: string): void {
    for (const id of [...this.#jobs.keys()]) this.#fail(id, new AgentJobError("disconnected", reason), false);
  }

  #start(job: Job, status: number, contentType: string): void {
    job.started = true;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          job.controller = controller;
        },
        pull: () => {
          if (job.pausedByUs) {
            job.pausedByUs = false;
            this.#channel.send({ type: "job_resume", job_id: job.id });
          }
          this.#maybeResumeSocket();
        },
        cancel: () => this.#cancel(job.id, new AgentJobError("cancelled", "the caller stopped reading")),
      },
      { highWaterMark: this.#highWaterMark, size: (chunk) => chunk.byteLength },
    );
    job.resolve(new Response(stream, { status, headers: { "content-type": contentType } }));
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
    else job.controller?.error(error);
  }

  #finish(job: Job): void {
    job.ended = true;
    clearTimeout(job.deadline);
    job.cleanup();
    this.#jobs.delete(job.id);
    this.#maybeResumeSocket();
  }

  #maybeResumeSocket(): void {
    if (!this.#socketPaused) return;
    for (const job of this.#jobs.values()) {
      if ((job.controller?.desiredSize ?? 0) < -this.#highWaterMark * hardLimitFactor) return;
    }
    this.#socketPaused = false;
    this.#channel.resumeReading();
  }
}

function isStreamRequest(request: unknown): boolean {
  return typeof request === "object" && request !== null && (request as { stream?: unknown }).stream === true;
}
