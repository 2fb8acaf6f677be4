import { createHash } from "node:crypto";
import type { AgentMessage, JobMessage } from "@pod-gateway/contracts/agent-protocol";
import { maxTokenCount } from "@pod-gateway/contracts/bounded-values";
import { hostAttestationMessage, type JobAttestation } from "@pod-gateway/contracts/usage-receipt";
import type { ServedModel } from "./models";
import { fitOutputLimit } from "./output-limit";

/** Sends one frame to the gateway: typed by the protocol module the gateway parses with. */
export type Send = (message: AgentMessage) => void;

/** How a job went, for the per-job log line and the throughput the heartbeat reports. */
export interface JobReport {
  outcome: "done" | "failed" | "cancelled";
  /** The backend's HTTP status, when it answered. */
  status: number | undefined;
  bytes: number;
  durationMs: number;
  /** Output tokens as the backend's own usage said (never billed: the gateway counts). */
  outputTokens: number | undefined;
  /** The output limit, when it was lowered to fit the model's context. */
  lowered: { from: number; to: number } | undefined;
  /** Why it failed, in a few words. */
  error: string | undefined;
}

/** How much of the end of a response is kept to read the backend's usage from. */
const usageTailBytes = 4096;

/**
 * The output tokens a backend's usage names at the end of its answer (OpenAI's
 * `completion_tokens`, Anthropic's `output_tokens`; a stream's last figure), or undefined.
 */
function outputTokensIn(tail: string): number | undefined {
  const matches = [...tail.matchAll(/"(?:completion_tokens|output_tokens)"\s*:\s*(\d{1,9})/g)];
  const last = matches.at(-1)?.[1];
  return last === undefined ? undefined : Number(last);
}

/** One job at the backend: bytes go back unchanged as they arrive, paused while the gateway asks. */
export class RunningJob {
  readonly id: string;
  readonly #sign: (text: string) => string;
  readonly #controller = new AbortController();
  #paused = false;
  #wake: (() => void) | undefined;

  /** `sign`: the agent's enrolled key over a text (its attestation of each finished job). */
  constructor(id: string, sign: (text: string) => string) {
    this.id = id;
    this.#sign = sign;
  }

  /** What the agent signs it was sent and answered: the gateway puts it in the caller's receipt. */
  #attest(job: JobMessage, responseSha256: string, outputTokens: number | undefined): JobAttestation {
    const requestSha256 = createHash("sha256").update(JSON.stringify(job.request)).digest("hex");
    const signature = this.#sign(
      hostAttestationMessage({ jobId: job.job_id, requestSha256, responseSha256, outputTokens }),
    );
    return {
      request_sha256: requestSha256,
      response_sha256: responseSha256,
      ...(outputTokens === undefined ? {} : { output_tokens: outputTokens }),
      signature,
    };
  }

  cancel(): void {
    this.#controller.abort(new Error("cancelled by the gateway"));
    this.resume();
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    this.#wake?.();
    this.#wake = undefined;
  }

  async #whilePaused(): Promise<void> {
    while (this.#paused && !this.#controller.signal.aborted) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  /** Runs the job against the model's backend; resolves when it is finished, failed or cancelled. */
  async run(job: JobMessage, model: ServedModel, send: Send): Promise<JobReport> {
    const signal = AbortSignal.any([this.#controller.signal, AbortSignal.timeout(job.deadline_ms)]);
    const started = Date.now();
    const fitted = fitOutputLimit({ body: job.request, format: job.format }, model.contextWindow);
    const report = (
      outcome: JobReport["outcome"],
      extra: Partial<Omit<JobReport, "outcome">> = {},
    ): JobReport => ({
      outcome,
      status: undefined,
      bytes: 0,
      durationMs: Date.now() - started,
      outputTokens: undefined,
      lowered: fitted.lowered,
      error: undefined,
      ...extra,
    });
    let response: Response;
    try {
      response = await model.backend.respond(model.modelId, fitted.request, signal);
    } catch (error) {
      if (this.#controller.signal.aborted) return report("cancelled");
      const timeout = error instanceof Error && error.name === "TimeoutError";
      const message = (error instanceof Error ? error.message : "backend unreachable").slice(0, 2000);
      send({
        type: "job_error",
        job_id: job.job_id,
        error_code: timeout ? "backend_timeout" : "backend_unreachable",
        message,
        tokens_emitted: 0,
      });
      return report("failed", { error: message });
    }
    if (
      response.status === 401 ||
      response.status === 403 ||
      response.status === 404 ||
      response.status >= 500
    ) {
      await response.body?.cancel().catch(() => undefined);
      send({
        type: "job_error",
        job_id: job.job_id,
        error_code:
          response.status === 404
            ? "model_not_loaded"
            : response.status >= 500
              ? "backend_unreachable"
              : "auth_rejected_by_backend",
        message: `backend answered ${response.status}`,
        tokens_emitted: 0,
      });
      return report("failed", { status: response.status, error: `backend answered ${response.status}` });
    }
    let first = true;
    let bytes = 0;
    let tail = "";
    const answered = createHash("sha256");
    const decoder = new TextDecoder();
    const reader = response.body?.getReader();
    try {
      for (;;) {
        await this.#whilePaused();
        if (!reader) break;
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        answered.update(value);
        tail = (tail + decoder.decode(value, { stream: true })).slice(-usageTailBytes);
        send({
          type: "job_chunk",
          job_id: job.job_id,
          data: Buffer.from(value).toString("base64"),
          ...(first
            ? {
                status: response.status,
                content_type: headerValue(response.headers.get("content-type")),
              }
            : {}),
        });
        first = false;
      }
    } catch (error) {
      if (this.#controller.signal.aborted) return report("cancelled", { status: response.status, bytes });
      const message = (error instanceof Error ? error.message : "backend stream failed").slice(0, 2000);
      send({ type: "job_error", job_id: job.job_id, error_code: "backend_timeout", message });
      return report("failed", { status: response.status, bytes, error: message });
    }
    if (first) {
      send({ type: "job_chunk", job_id: job.job_id, data: "", status: response.status });
    }
    // Counts are the gateway's to make from the bytes; the agent reports timing and signs what it did.
    const reported = outputTokensIn(tail);
    // A figure past the protocol's bound would make the whole frame a violation: leave it out.
    const outputTokens = reported !== undefined && reported <= maxTokenCount ? reported : undefined;
    send({
      type: "job_done",
      job_id: job.job_id,
      duration_ms: Date.now() - started,
      attestation: this.#attest(job, answered.digest("hex"), outputTokens),
    });
    return report("done", { status: response.status, bytes, outputTokens: reported });
  }
}

/** The backend's content type as the protocol carries it: printable ASCII, or JSON's when it has none. */
function headerValue(contentType: string | null): string {
  const value = (contentType ?? "").replace(/[^\t\x20-\x7e]/g, "").slice(0, 200);
  return value === "" ? "application/json" : value;
}
