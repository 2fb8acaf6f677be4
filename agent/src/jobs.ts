import type { AgentMessage, JobMessage } from "@pod-gateway/contracts/agent-protocol";
import { backendHeaders, type ServedModel, serverRoot } from "./backends";

/** Sends one frame to the gateway: typed by the protocol module the gateway parses with. */
export type Send = (message: AgentMessage) => void;

/** One job at the backend: bytes go back unchanged as they arrive, paused while the gateway asks. */
export class RunningJob {
  readonly id: string;
  readonly #controller = new AbortController();
  #paused = false;
  #wake: (() => void) | undefined;

  constructor(id: string) {
    this.id = id;
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
  async run(job: JobMessage, model: ServedModel, send: Send): Promise<"done" | "failed" | "cancelled"> {
    const signal = AbortSignal.any([this.#controller.signal, AbortSignal.timeout(job.deadline_ms)]);
    const path = job.format === "anthropic" ? "/v1/messages" : "/v1/chat/completions";
    const started = Date.now();
    let response: Response;
    try {
      response = model.engine
        ? await model.engine.respond({ ...job.request, model: model.modelId }, signal)
        : await fetch(`${serverRoot(model.backend.url)}${path}`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              ...(job.format === "anthropic" ? { "anthropic-version": "2023-06-01" } : {}),
              ...backendHeaders(model.backend),
            },
            body: JSON.stringify({ ...job.request, model: model.modelId }),
            signal,
          });
    } catch (error) {
      if (this.#controller.signal.aborted) return "cancelled";
      const timeout = error instanceof Error && error.name === "TimeoutError";
      send({
        type: "job_error",
        job_id: job.job_id,
        error_code: timeout ? "backend_timeout" : model.engine ? "internal" : "backend_unreachable",
        message: (error instanceof Error ? error.message : "backend unreachable").slice(0, 2000),
        tokens_emitted: 0,
      });
      return "failed";
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
      return "failed";
    }
    let first = true;
    const reader = response.body?.getReader();
    try {
      for (;;) {
        await this.#whilePaused();
        if (!reader) break;
        const { done, value } = await reader.read();
        if (done) break;
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
      if (this.#controller.signal.aborted) return "cancelled";
      send({
        type: "job_error",
        job_id: job.job_id,
        error_code: "backend_timeout",
        message: (error instanceof Error ? error.message : "backend stream failed").slice(0, 2000),
      });
      return "failed";
    }
    if (first) {
      send({ type: "job_chunk", job_id: job.job_id, data: "", status: response.status });
    }
    // Counts are the gateway's to make from the bytes; the agent reports timing only.
    send({ type: "job_done", job_id: job.job_id, duration_ms: Date.now() - started });
    return "done";
  }
}

/** The backend's content type as the protocol carries it: printable ASCII, or JSON's when it has none. */
function headerValue(contentType: string | null): string {
  const value = (contentType ?? "").replace(/[^\t\x20-\x7e]/g, "").slice(0, 200);
  return value === "" ? "application/json" : value;
}
