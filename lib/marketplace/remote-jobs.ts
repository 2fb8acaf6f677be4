import { randomUUID } from "node:crypto";
import type { DirectMessage } from "@pod-gateway/contracts/replica-protocol";
import type { HostAttestation } from "@pod-gateway/contracts/usage-receipt";
import type { DispatchOptions } from "../providers/candidate";
import { openSpan, type Span, traceparentOf } from "../telemetry/tracing";
import { AgentJobError } from "./agent-jobs";

/** Where a job runs: the agent's connection on its home replica. */
export interface RemoteTarget {
  replica: string;
  providerId: string;
  connection: string;
  modelId: string;
}

export interface RemoteJobsOptions {
  /** This replica's address, where the home sends the job's bytes. */
  self: string;
  send(replica: string, message: DirectMessage): Promise<boolean>;
  /** Bytes the home may send beyond what the caller has taken (the flow-control window). */
  windowBytes?: number;
}

type Reply = Extract<DirectMessage, { type: "start" | "chunk" | "end" | "fail" }>;

interface RemoteJob {
  id: string;
  home: string;
  started: boolean;
  ended: boolean;
  resolve(response: Response): void;
  reject(error: Error): void;
  controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** Bytes put in the caller's stream, and the count last acknowledged to the home. */
  enqueued: number;
  acked: number;
  onAgentTokens: ((tokens: Record<string, number>) => void) | undefined;
  onAgentAttestation: ((attestation: HostAttestation) => void) | undefined;
  /** The hop's span while tracing: from the job's publish to its end. */
  span: Span | undefined;
  cleanup(): void;
}

const defaultWindowBytes = 256 * 1024;

/**
 * Jobs this replica sent to agents held by other replicas (the caller's side). A job becomes a
 * Response when its home says the agent answered; its body is fed by the home's chunks and read
 * at the caller's pace: the home sends at most a window ahead of what the caller took (acks say
 * how much), so a slow caller pauses the job at the agent and memory stays bounded. The caller
 * leaving cancels the job at the home; the home dying or Redis going away ends it with an error
 * (mid-stream: an in-band error for the caller, and what was relayed is billed).
 */
export class RemoteJobs {
  readonly #jobs = new Map<string, RemoteJob>();
  readonly #options: RemoteJobsOptions;
  readonly #window: number;

  constructor(options: RemoteJobsOptions) {
    this.#options = options;
    this.#window = options.windowBytes ?? defaultWindowBytes;
  }

  get size(): number {
    return this.#jobs.size;
  }

  dispatch(target: RemoteTarget, body: string, options: DispatchOptions): Promise<Response> {
    return new Promise<Response>((resolve, reject) => {
      if (options.signal.aborted) {
        reject(options.signal.reason instanceof Error ? options.signal.reason : new Error("aborted"));
        return;
      }
      const id = randomUUID();
      const span = openSpan("replica hop", {
        "pod.job_id": id,
        "pod.home_replica": target.replica,
        "pod.provider_id": target.providerId,
      });
      const traceparent = traceparentOf(span);
      const onAbort = () => this.#cancel(id, new AgentJobError("cancelled", "the caller went away"));
      const job: RemoteJob = {
        id,
        home: target.replica,
        started: false,
        ended: false,
        resolve,
        reject,
        controller: undefined,
        enqueued: 0,
        acked: 0,
        onAgentTokens: options.onAgentTokens,
        onAgentAttestation: options.onAgentAttestation,
        span,
        cleanup: () => options.signal.removeEventListener("abort", onAbort),
      };
      options.signal.addEventListener("abort", onAbort, { once: true });
      this.#jobs.set(id, job);
      this.#options
        .send(target.replica, {
          type: "job",
          job: id,
          from: this.#options.self,
          providerId: target.providerId,
          connection: target.connection,
          modelId: target.modelId,
          body,
          window: this.#window,
          ...(traceparent ? { traceparent } : {}),
        })
        .then(
          (delivered) => {
            if (!delivered) this.#undelivered(id);
          },
          () => this.#undelivered(id),
        );
    });
  }

  /** A reply from a job's home replica. */
  receive(message: Reply): void {
    const job = this.#jobs.get(message.job);
    if (!job) return;
    switch (message.type) {
      case "start":
        if (!job.started) this.#start(job, message.status, message.contentType);
        this.#enqueue(job, message.data);
        if (message.end) this.#end(job, message.end.tokens, message.end.attestation);
        return;
      case "chunk":
        if (job.started) this.#enqueue(job, message.data);
        return;
      case "end":
        if (!job.started) this.#start(job, 200, "application/json");
        this.#end(job, message.tokens, message.attestation);
        return;
      case "fail":
        this.#fail(job.id, new AgentJobError(message.code, message.message));
        return;
    }
  }

  /**
   * Jobs whose home is no longer live fail: their agent's connection went with it. A cancel
   * goes too: a home only late with its beats (a busy machine) is still running the job, and
   * with nobody here to acknowledge its bytes it would hold the agent's slot, paused, for good.
   */
  failUnless(isLive: (replica: string) => boolean, reason: string): void {
    for (const job of [...this.#jobs.values()])
      if (!isLive(job.home)) this.#cancel(job.id, new AgentJobError("disconnected", reason));
  }

  /** Redis went away: no more bytes can come for any job. */
  failAll(reason: string): void {
    for (const id of [...this.#jobs.keys()]) this.#fail(id, new AgentJobError("disconnected", reason));
  }

  #start(job: RemoteJob, status: number, contentType: string): void {
    job.started = true;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          job.controller = controller;
        },
        pull: (controller) => this.#acknowledge(job, controller),
        cancel: () => this.#cancel(job.id, new AgentJobError("cancelled", "the caller stopped reading")),
      },
      { highWaterMark: this.#window / 4, size: (chunk) => chunk.byteLength },
    );
    job.resolve(new Response(stream, { status, headers: { "content-type": contentType } }));
  }

  #end(
    job: RemoteJob,
    tokens: Record<string, number> | undefined,
    attestation: HostAttestation | undefined,
  ): void {
    if (tokens) job.onAgentTokens?.(tokens);
    if (attestation) job.onAgentAttestation?.(attestation);
    this.#finish(job);
    job.controller?.close();
  }

  #enqueue(job: RemoteJob, base64: string): void {
    if (base64.length === 0 || !job.controller || job.ended) return;
    const bytes = Buffer.from(base64, "base64");
    job.enqueued += bytes.length;
    job.controller.enqueue(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
  }

  /** The caller took bytes: once a quarter window more than last said, tell the home. */
  #acknowledge(job: RemoteJob, controller: ReadableStreamDefaultController<Uint8Array>): void {
    if (job.ended) return;
    const queued = this.#window / 4 - (controller.desiredSize ?? 0);
    const taken = job.enqueued - Math.max(0, queued);
    if (taken - job.acked < this.#window / 4) return;
    job.acked = taken;
    this.#options.send(job.home, { type: "ack", job: job.id, bytes: taken }).catch(() => undefined);
  }

  /**
   * The job was not known to be delivered: it fails here (the caller fails over), and a cancel
   * follows it on the same line, since "not known" includes a reply that timed out after the
   * job did reach the home, whose agent would otherwise run it for nobody.
   */
  #undelivered(id: string): void {
    this.#cancel(id, new AgentJobError("unreachable", "the replica holding the agent is unreachable"));
  }

  #cancel(id: string, error: AgentJobError): void {
    const job = this.#jobs.get(id);
    if (!job) return;
    this.#options.send(job.home, { type: "cancel", job: id }).catch(() => undefined);
    this.#fail(id, error);
  }

  #fail(id: string, error: AgentJobError): void {
    const job = this.#jobs.get(id);
    if (!job) return;
    this.#finish(job);
    if (!job.started) job.reject(error);
    else job.controller?.error(error);
  }

  #finish(job: RemoteJob): void {
    job.ended = true;
    job.span?.end();
    job.cleanup();
    this.#jobs.delete(job.id);
  }
}
