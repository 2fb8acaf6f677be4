import { followServedJob } from "../../canaries/check-answer";
import type { CallerDialect } from "../../dialects/dialect";
import { callerFormats } from "../../dialects/wire-format";
import { badRequest } from "../../errors/gateway-error";
import {
  holdPrice,
  type PreparedInference,
  prepareInference,
  routedCandidates,
} from "../../proxy/prepare-inference";
import { releaseReservation, reserveForRequest } from "../../proxy/reserve";
import type { AnswerKeeper } from "../../proxy/reserved-request";
import { serveCachedAnswer } from "../../proxy/serve-cached";
import { serveReserved } from "../../proxy/serve-reserved";
import type { CacheDecision, ResponseCache } from "../../response-cache/response-cache";
import { keepResponse } from "../../responses/keep-response";
import { responseOwner, withPreviousResponse } from "../../responses/stored-responses";
import type { ApiCall } from "../route-definition";

/**
 * POST /proxy/<token>/v1/chat/completions, /proxy/<token>/v1/messages and
 * /proxy/<token>/v1/responses (answered through the dialect IR, errors OpenAI's): authenticate,
 * validate, match the request to its sources (marketplace, key relays, centralized) under
 * the caller's mode, pins and ceilings, hold the worst case, dispatch with failover in
 * whatever dialect each source speaks, relay in the caller's dialect, and bill the usage.
 * Every rejection happens before the hold, so bad input moves no money; a token without a
 * positive balance is refused (402) by the hold itself, before any upstream call.
 */
export async function handleTokenInference(
  call: ApiCall<"token">,
  dialect: CallerDialect,
): Promise<Response> {
  const { app, request, requestId, principal: record } = call;
  const format = callerFormats[dialect];
  // A Responses turn may continue a response this token stored: its conversation goes first.
  const prepared = await prepareInference(
    app,
    request,
    dialect,
    format.storesResponses ? (body) => withPreviousResponse(app, responseOwner(record), body) : undefined,
  );
  // Anthropic's Messages API requires an output limit; so does its drop-in.
  if (format.requiresOutputLimit && prepared.inference.maxTokens === undefined)
    throw badRequest("max_tokens: Field required", { param: "max_tokens" });
  // One check when the request did not ask for the cache (nor its key): the common path.
  const cache = app.responseCache?.decide({
    accountId: record.accountId,
    dialect,
    body: prepared.callerBody,
    bodyField: prepared.cacheField,
    headers: request.headers,
    choices: prepared.inference.choices,
    keyCaches: record.key?.responseCache === true,
  });
  if (cache?.state === "lookup") {
    const hit = await answerFromCache(call, prepared.inference, cache);
    if (hit)
      return format.storesResponses
        ? keepResponse(app, responseOwner(record), prepared.inference.body, hit)
        : hit;
  }
  const candidates = routedCandidates(prepared);
  const reservation = await reserveForRequest(app, {
    accountId: record.accountId,
    // Held at the dearest candidate's rates, so a failover never bills beyond the hold.
    price: holdPrice(candidates),
    inputTokens: prepared.inputTokens,
    maxOutputTokens: prepared.maxOutputTokens,
    choices: prepared.inference.choices,
    callerLimit: prepared.inference.maxTokens !== undefined,
    balanceShare: app.env.HOLD_BALANCE_SHARE,
    key: record.key,
  });
  let response: Response;
  try {
    response = await serveReserved(app, request, {
      requestId,
      accountId: record.accountId,
      inference: prepared.inference,
      model: prepared.model,
      modelOf: prepared.modelOf,
      candidates,
      reservation,
      maxInputTokens: prepared.inputTokens,
      onServed: followServedJob(app, prepared.model, candidates),
      ...(cache?.state === "lookup" && app.responseCache
        ? { keeper: keeperOf(app.responseCache, cache) }
        : {}),
    });
  } catch (error) {
    await releaseReservation(app, record.accountId, reservation.hold);
    throw error;
  }
  if (cache) response.headers.set("x-pod-cache", cache.state === "lookup" ? "miss" : "bypass");
  // Served and billed: keeping the answer can no longer fail the request.
  return format.storesResponses
    ? keepResponse(app, responseOwner(record), prepared.inference.body, response)
    : response;
}

type Lookup = Extract<CacheDecision, { state: "lookup" }>;

/** The kept answer for this request, billed and rendered, or undefined on a miss. */
async function answerFromCache(
  call: ApiCall<"token">,
  inference: PreparedInference["inference"],
  cache: Lookup,
): Promise<Response | undefined> {
  const { app, principal: record } = call;
  const answer = await app.responseCache?.lookup(cache.key);
  if (!answer || !app.responseCache) return undefined;
  return serveCachedAnswer(app, {
    requestId: call.requestId,
    accountId: record.accountId,
    inference,
    answer,
    charge: app.responseCache.hitCharge(answer),
    key: record.key,
  });
}

function keeperOf(responseCache: ResponseCache, cache: Lookup): AnswerKeeper {
  return {
    maxBytes: responseCache.settings.maxEntryBytes,
    keep: (answer) => responseCache.keep(cache.key, cache.ttlMs, answer),
  };
}
