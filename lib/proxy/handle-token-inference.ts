import type { AppContext } from "../app-context";
import { type CallerDialect, errorDialectOf } from "../dialects/dialect";
import { GatewayError } from "../errors/gateway-error";
import { parseJsonText, readBodyText } from "../http/read-body";
import { errorResponse } from "../http/responses";
import { newId } from "../ids";
import { releaseHold } from "../ledger/holds";
import { resolveModel } from "../routing/resolve-model";
import { parseRoutingHeaders, routeRequest } from "../routing/route-request";
import { translatableCandidates } from "../routing/translatable-candidates";
import { authenticateToken } from "../tokens/authenticate-token";
import { highestPrice } from "./highest-price";
import { estimateInputTokens, parseInferenceRequest } from "./inference-request";
import { reserveForRequest } from "./reserve";
import { serveReserved } from "./serve-reserved";

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
  app: AppContext,
  request: Request,
  token: string,
  dialect: CallerDialect,
): Promise<Response> {
  const requestId = newId("req");
  const idHeaders = { "x-request-id": requestId };
  try {
    const record = await authenticateToken(app.database.db, token);
    const routing = parseRoutingHeaders(request.headers);
    const rawBody = await readBodyText(request, app.env.MAX_BODY_BYTES);
    const inference = parseInferenceRequest(dialect, parseJsonText(rawBody), rawBody);
    const model = resolveModel(app.catalog, inference.model);
    if (!model) {
      throw new GatewayError("model_not_found", `model not found: ${inference.model}`, { param: "model" });
    }
    const candidates = translatableCandidates(
      dialect,
      inference.body,
      await routeRequest(app, model, routing),
    );
    const maxOutputTokens = Math.min(inference.maxTokens ?? model.maxOutputTokens, model.maxOutputTokens);
    const reservation = await reserveForRequest(app.database.db, {
      accountId: record.accountId,
      // Held at the dearest candidate's rates, so a failover never bills beyond the hold.
      price: highestPrice(candidates),
      inputTokens: estimateInputTokens(inference, model.contextWindow),
      maxOutputTokens,
      ttlSeconds: app.env.HOLD_TTL_SECONDS,
    });
    try {
      return await serveReserved(app, request, {
        requestId,
        accountId: record.accountId,
        inference,
        model,
        candidates,
        reservation,
        maxOutputTokens,
      });
    } catch (error) {
      await releaseHold(app.database.db, reservation.holdId);
      throw error;
    }
  } catch (error) {
    return errorResponse(errorDialectOf(dialect), error, idHeaders);
  }
}
