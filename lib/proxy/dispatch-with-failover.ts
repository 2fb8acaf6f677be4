import type { HostAttestation } from "@pod-gateway/contracts/usage-receipt";
import type { Dialect } from "../dialects/dialect";
import { parseUpstreamError } from "../dialects/translate/translate-error";
import type { UpstreamOperation } from "../dialects/wire-format";
import { GatewayError } from "../errors/gateway-error";
import { type AbortHandle, LightAbort } from "../light-abort";
import { log } from "../log";
import type { Candidate } from "../providers/candidate";
import { inSpan, SpanKind, tracingOn } from "../telemetry/tracing";

export interface DispatchSuccess {
  candidate: Candidate;
  response: Response;
  /** The body sent to this candidate: what the gateway meters the prompt from. */
  body: string;
  /** Aborts the upstream request (client went away). */
  abort(): void;
}

export interface FailoverOptions {
  /** The caller's signal: when it aborts, the upstream request is aborted too. */
  signal: AbortHandle;
  forwardHeaders: Record<string, string>;
  /** Time allowed until the upstream sends its headers. */
  headersTimeoutMs: number;
  buildBody(candidate: Candidate): string;
  /** Defaults to a generation; every candidate given must support the operation. */
  operation?: UpstreamOperation;
  onAgentTokens?(tokens: Record<string, number>): void;
  onAgentAttestation?(attestation: HostAttestation): void;
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
  const failures: Failure[] = [];
  for (const candidate of candidates) {
    if (options.signal.aborted)
      throw new GatewayError("bad_request", "bad request: client closed the request");
    const controller = new LightAbort();
    const onAbort = () => controller.abort(options.signal.reason);
    options.signal.addEventListener("abort", onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error("upstream headers timeout"));
    }, options.headersTimeoutMs);
    const started = performance.now();
    try {
      const body = options.buildBody(candidate);
      const dispatch = () =>
        candidate.dispatch(body, {
          signal: controller,
          forwardHeaders: options.forwardHeaders,
          ...(options.operation ? { operation: options.operation } : {}),
          ...(options.onAgentTokens ? { onAgentTokens: options.onAgentTokens } : {}),
          ...(options.onAgentAttestation ? { onAgentAttestation: options.onAgentAttestation } : {}),
        });
      const response = tracingOn() ? await tracedAttempt(candidate, options, dispatch) : await dispatch();
      clearTimeout(timer);
      if (response.ok) {
        options.onAttemptSucceeded?.(candidate, performance.now() - started);
        return {
          candidate,
          response,
          body,
          abort: () => {
            options.signal.removeEventListener("abort", onAbort);
            controller.abort();
          },
        };
      }
      const text = await response.text().catch(() => "");
      options.signal.removeEventListener("abort", onAbort);
      if (!isSourceFailure(response.status))
        throw upstreamClientError(candidate.dialect, response.status, text);
      failures.push({
        type: "status",
        status: response.status,
        retryAfter: response.headers.get("retry-after"),
      });
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
      failures.push({ type: timedOut ? "timeout" : "unreachable" });
      lastReason = timedOut
        ? `upstream ${candidate.providerId} sent no headers within ${options.headersTimeoutMs} ms`
        : `upstream ${candidate.providerId} unreachable: ${error instanceof Error ? error.message : "error"}`;
      options.onAttemptFailed?.(candidate, lastReason, performance.now() - started);
      log.warn("upstream attempt failed", { provider: candidate.providerId, reason: lastReason });
    }
  }
  throw exhausted(failures, lastReason, lastStatus);
}

/** One attempt as a GenAI client span (semantic conventions: operation, provider, model). */
function tracedAttempt(
  candidate: Candidate,
  options: FailoverOptions,
  dispatch: () => Promise<Response>,
): Promise<Response> {
  const operation =
    options.operation === "embeddings"
      ? "embeddings"
      : options.operation === "count_tokens"
        ? "count_tokens"
        : "chat";
  return inSpan(
    `${operation} ${candidate.upstreamModelId}`,
    {
      "gen_ai.operation.name": operation,
      "gen_ai.provider.name": candidate.route === "centralized" ? candidate.providerId : "pod.marketplace",
      "gen_ai.request.model": candidate.upstreamModelId,
      "pod.route": candidate.route,
      "pod.provider_id": candidate.providerId,
    },
    async (span) => {
      const response = await dispatch();
      span?.setAttribute("http.response.status_code", response.status);
      return response;
    },
    { kind: SpanKind.CLIENT },
  );
}

type Failure =
  | { type: "status"; status: number; retryAfter: string | null }
  | { type: "timeout" | "unreachable" };

/**
 * The error once every source failed. When they all rate-limited, the caller is rate
 * limited too (429 with the upstreams' shortest Retry-After); when they all timed out, it
 * is the timeout kind (504); any other mix is a 502.
 */
function exhausted(failures: Failure[], lastReason: string, lastStatus: number | undefined): GatewayError {
  if (
    failures.length > 0 &&
    failures.every((failure) => failure.type === "status" && failure.status === 429)
  ) {
    const waits = failures
      .map((failure) => (failure.type === "status" ? Number(failure.retryAfter) : Number.NaN))
      .filter((seconds) => Number.isInteger(seconds) && seconds >= 0);
    const retryAfter = waits.length > 0 ? Math.min(...waits) : 1;
    return new GatewayError(
      "rate_limited",
      "rate limited: every source for this model is rate limiting; retry later",
      {
        headers: { "retry-after": String(retryAfter) },
        details: { retry_after_seconds: retryAfter, upstream_status: 429 },
      },
    );
  }
  if (failures.length > 0 && failures.every((failure) => failure.type === "timeout"))
    return new GatewayError("upstream_timeout", `upstream timeout: ${lastReason}`);
  return new GatewayError(
    "upstream_error",
    `upstream error: ${lastReason}`,
    lastStatus === undefined ? {} : { details: { upstream_status: lastStatus } },
  );
}

/**
 * A request the upstream calls malformed, in our envelope: its explanation is kept when it
 * comes in the upstream's error envelope, otherwise a generic message (never raw bytes).
 */
function upstreamClientError(dialect: Dialect, status: number, text: string): GatewayError {
  const { message } = parseUpstreamError(dialect, text, status);
  const type = status === 413 ? "payload_too_large" : "bad_request";
  return new GatewayError(type, message.startsWith("bad request") ? message : `bad request: ${message}`, {
    status: status >= 400 && status < 500 ? status : 400,
  });
}
