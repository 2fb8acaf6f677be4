import { followServedJob } from "../../canaries/check-answer";
import type { CallerDialect } from "../../dialects/dialect";
import { callerFormats } from "../../dialects/wire-format";
import { badRequest } from "../../errors/gateway-error";
import { holdPrice, prepareInference, routedCandidates } from "../../proxy/prepare-inference";
import { releaseReservation, reserveForRequest } from "../../proxy/reserve";
import { serveReserved } from "../../proxy/serve-reserved";
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
    format.storesResponses
      ? (body) => withPreviousResponse(app.database.db, responseOwner(record), body)
      : undefined,
  );
  // Anthropic's Messages API requires an output limit; so does its drop-in.
  if (format.requiresOutputLimit && prepared.inference.maxTokens === undefined)
    throw badRequest("max_tokens: Field required", { param: "max_tokens" });
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
    });
  } catch (error) {
    await releaseReservation(app, record.accountId, reservation.hold);
    throw error;
  }
  // Served and billed: keeping the answer can no longer fail the request.
  return format.storesResponses
    ? keepResponse(app, responseOwner(record), prepared.inference.body, response)
    : response;
}
