import { resolveModelOrThrow } from "../../catalog/unknown-model";
import { upstreamFormats } from "../../dialects/wire-format";
import { badRequest, GatewayError } from "../../errors/gateway-error";
import { type ApiRequest, clientAbort } from "../../http/api-request";
import { parseJsonText, readBodyText } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { log } from "../../log";
import { dispatchWithFailover } from "../../proxy/dispatch-with-failover";
import { centralizedCandidates } from "../../routing/centralized-candidates";
import type { TokenRecord } from "../../tokens/find-token";
import { readTokenBalance } from "../../tokens/token-balance";
import type { ApiServices } from "../api-services";
import type { ApiCall } from "../route-definition";

/** Claude Code waits on the count before it sends a turn: past this, an estimate is better. */
const countTimeoutMs = 10_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** About four characters a token: what is used when no Anthropic upstream can count exactly. */
function estimateTokens(body: Record<string, unknown>): number {
  const counted = JSON.stringify({ system: body.system, messages: body.messages, tools: body.tools });
  return Math.max(1, Math.ceil(counted.length / 4));
}

/**
 * Free to the caller but not to the operator (each count uses the Anthropic key), so only a
 * funded token may ask, and at most COUNT_TOKENS_RATE_LIMIT_PER_MINUTE times a minute.
 */
async function admit(app: ApiServices, record: TokenRecord): Promise<void> {
  // Keyed by the token row's random id: unique across databases sharing one Redis.
  const limit = await app.countTokensLimiter.hit(`count-tokens:${record.id}`);
  if (!limit.allowed) {
    throw new GatewayError(
      "rate_limited",
      `rate limited: at most ${app.env.COUNT_TOKENS_RATE_LIMIT_PER_MINUTE} count_tokens calls per minute per token`,
      {
        headers: { "retry-after": String(limit.retryAfterSeconds) },
        details: { retry_after_seconds: limit.retryAfterSeconds },
      },
    );
  }
  const { balance } = await readTokenBalance(app, record.accountId);
  if (balance <= 0n) {
    throw new GatewayError("insufficient_balance", "insufficient balance: fund this token to count tokens", {
      details: { available_microunits: 0 },
    });
  }
}

/** The body of a response, or a rejection once `ms` have passed (the upstream is then aborted). */
async function textWithin(response: Response, ms: number, abort: () => void): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      abort();
      reject(new Error("upstream body timeout"));
    }, ms);
  });
  try {
    return await Promise.race([response.text(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The exact count from the first Anthropic upstream that answers, through the same dispatch
 * (timeouts, failover, error mapping) as inference. Undefined when none can: the caller then
 * gets an estimate. A request the upstream calls malformed is the caller's 4xx.
 */
async function askUpstream(
  app: ApiServices,
  request: ApiRequest,
  body: Record<string, unknown>,
  modelId: string,
): Promise<number | undefined> {
  const model = await resolveModelOrThrow(app, modelId);
  const candidates = centralizedCandidates(app, model).filter(
    (candidate) => upstreamFormats[candidate.dialect].paths.count_tokens !== undefined,
  );
  if (candidates.length === 0) return undefined;
  try {
    const success = await dispatchWithFailover(candidates, {
      signal: clientAbort(request),
      forwardHeaders: { "anthropic-version": request.headers.get("anthropic-version") ?? "2023-06-01" },
      headersTimeoutMs: Math.min(app.env.UPSTREAM_TIMEOUT_MS, countTimeoutMs),
      buildBody: (candidate) => JSON.stringify({ ...body, model: candidate.upstreamModelId }),
      operation: "count_tokens",
    });
    const counted: unknown = JSON.parse(await textWithin(success.response, countTimeoutMs, success.abort));
    if (isRecord(counted) && typeof counted.input_tokens === "number") return counted.input_tokens;
    log.warn("count_tokens upstream answered without input_tokens; estimating", {
      provider: success.candidate.providerId,
    });
  } catch (error) {
    if (error instanceof GatewayError && error.status < 500 && error.type !== "rate_limited") throw error;
    log.warn("count_tokens upstream failed; estimating", { error });
  }
  return undefined;
}

/**
 * POST /proxy/<token>/v1/messages/count_tokens – Anthropic's token counter, which Claude Code
 * calls to manage its context. Free, like Anthropic's own, for a funded token: asked of a
 * configured Anthropic upstream when there is one, estimated otherwise (`x-pod-estimated: true`).
 */
export async function countTokens(call: ApiCall<"token">): Promise<Response> {
  const { app, request, requestId, principal } = call;
  await admit(app, principal);
  const parsed = parseJsonText(await readBodyText(request, call.bodyLimit));
  if (!isRecord(parsed)) throw badRequest("request body must be a JSON object");
  if (typeof parsed.model !== "string" || parsed.model === "")
    throw badRequest("model is required", { param: "model" });
  if (!Array.isArray(parsed.messages)) throw badRequest("messages must be an array", { param: "messages" });
  const exact = await askUpstream(app, request, parsed, parsed.model);
  if (exact !== undefined) return jsonResponse({ input_tokens: exact }, 200, { "request-id": requestId });
  return jsonResponse({ input_tokens: estimateTokens(parsed) }, 200, {
    "request-id": requestId,
    "x-pod-estimated": "true",
  });
}
