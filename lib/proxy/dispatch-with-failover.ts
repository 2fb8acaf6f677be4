import { GatewayError } from "../errors/gateway-error";
import { log } from "../log";
import type { Candidate, UpstreamOperation } from "../routing/candidate";

export interface DispatchSuccess {
  candidate: Candidate;
  response: Response;
  /** Aborts the upstream request (client went away). */
  abort(): void;
}

export interface FailoverOptions {
  /** The caller's signal: when it aborts, the upstream request is aborted too. */
  signal: AbortSignal;
  forwardHeaders: Record<string, string>;
  /** Time allowed until the upstream sends its headers. */
  headersTimeoutMs: number;
  buildBody(candidate: Candidate): string;
  /** Defaults to a generation; every candidate given must support the operation. */
  operation?: UpstreamOperation;
  onAttemptFailed?(candidate: Candidate, reason: string, elapsedMs: number): void;
  onAttemptSucceeded?(candidate: Candidate, elapsedMs: number): void;
}

/** Statuses that mean "this source cannot serve now", not "the request is wrong". */
function isSourceFailure(status: number): boolean {
  return (
    status === 401 ||
    status === 403 ||
    status === 404 ||
    status === 408 ||
    status === 409 ||
    status === 429 ||
    status >= 500
  );
}

/**
 * Tries candidates in order until one answers with a success status. A failure before
 * the first byte moves on to the next candidate; a request the upstream calls malformed
 * is returned to the caller as a 4xx, since no other source would accept it either.
 */
export async function dispatchWithFailover(
  candidates: Candidate[],
  options: FailoverOptions,
): Promise<DispatchSuccess> {
  let lastStatus: number | undefined;
  let lastReason = "no provider attempted";
  for (const candidate of candidates) {
    if (options.signal.aborted)
      throw new GatewayError("bad_request", "bad request: client closed the request");
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal.reason);
    options.signal.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(
      () => controller.abort(new Error("upstream headers timeout")),
      options.headersTimeoutMs,
    );
    const started = performance.now();
    try {
      const response = await candidate.dispatch(options.buildBody(candidate), {
        signal: controller.signal,
        forwardHeaders: options.forwardHeaders,
        ...(options.operation ? { operation: options.operation } : {}),
      });
      clearTimeout(timer);
      if (response.ok) {
        options.onAttemptSucceeded?.(candidate, performance.now() - started);
        return {
          candidate,
          response,
          abort: () => {
            options.signal.removeEventListener("abort", onAbort);
            controller.abort();
          },
        };
      }
      const text = await response.text().catch(() => "");
      options.signal.removeEventListener("abort", onAbort);
      if (!isSourceFailure(response.status)) throw upstreamClientError(response.status, text);
      lastStatus = response.status;
      lastReason = `upstream ${candidate.providerId} answered ${response.status}`;
      options.onAttemptFailed?.(candidate, lastReason, performance.now() - started);
      log.warn("upstream attempt failed", { provider: candidate.providerId, status: response.status });
    } catch (error) {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      if (error instanceof GatewayError) throw error;
      if (options.signal.aborted)
        throw new GatewayError("bad_request", "bad request: client closed the request");
      lastStatus = undefined;
      lastReason = `upstream ${candidate.providerId} unreachable: ${error instanceof Error ? error.message : "error"}`;
      options.onAttemptFailed?.(candidate, lastReason, performance.now() - started);
      log.warn("upstream attempt failed", { provider: candidate.providerId, reason: lastReason });
    }
  }
  if (lastStatus === undefined) {
    throw new GatewayError("upstream_error", `upstream error: ${lastReason}`);
  }
  throw new GatewayError("upstream_error", `upstream error: ${lastReason}`, {
    details: { upstream_status: lastStatus },
  });
}

/** Keeps the upstream's own explanation of a malformed request, in our envelope. */
function upstreamClientError(status: number, text: string): GatewayError {
  let message = text.slice(0, 500);
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof body.error?.message === "string") message = body.error.message;
  } catch {
    // not JSON: keep the raw (truncated) text
  }
  const type = status === 413 ? "payload_too_large" : status === 429 ? "rate_limited" : "bad_request";
  return new GatewayError(
    type,
    message.startsWith("bad request")
      ? message
      : `bad request: ${message || `upstream rejected the request (${status})`}`,
    {
      status: status >= 400 && status < 500 ? status : 400,
    },
  );
}
