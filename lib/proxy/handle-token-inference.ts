import type { AppContext } from "../app-context";
import type { Dialect } from "../dialects/dialect";
import { GatewayError } from "../errors/gateway-error";
import { parseJsonText, readBodyText } from "../http/read-body";
import { errorResponse } from "../http/responses";
import { newId } from "../ids";
import { getAccountBalance } from "../ledger/accounts";
import { centralizedCandidates } from "../routing/centralized-candidates";
import { authenticateToken } from "../tokens/authenticate-token";
import { highestPrice } from "./highest-price";
import { estimateInputTokens, parseInferenceRequest } from "./inference-request";
import { reserveForRequest } from "./reserve";
import { serveReserved } from "./serve-reserved";
import { releaseHold } from "./settle-request";

/**
 * POST /proxy/<token>/v1/chat/completions and /proxy/<token>/v1/messages: authenticate,
 * validate, hold the worst case, dispatch with failover, relay, and bill the usage.
 */
export async function handleTokenInference(
  app: AppContext,
  request: Request,
  token: string,
  dialect: Dialect,
): Promise<Response> {
  const requestId = newId("req");
  const idHeaders = { "x-request-id": requestId };
  try {
    const record = await authenticateToken(app.database.db, token);
    const balance = await getAccountBalance(app.database.db, record.accountId);
    if (balance.available <= 0n) {
      throw new GatewayError("insufficient_balance", "insufficient balance: fund this token to continue", {
        details: { available_microunits: Number(balance.available) },
      });
    }
    const rawBody = await readBodyText(request, app.env.MAX_BODY_BYTES);
    const inference = parseInferenceRequest(dialect, parseJsonText(rawBody), rawBody);
    const model = app.catalog.resolve(inference.model);
    if (!model) {
      throw new GatewayError("model_not_found", `model not found: ${inference.model}`, { param: "model" });
    }
    const candidates = centralizedCandidates(app, model).filter((candidate) => candidate.dialect === dialect);
    if (candidates.length === 0) {
      throw new GatewayError("no_provider", `no healthy provider for model: ${model.id}`);
    }
    const reservation = await reserveForRequest(app.database.db, {
      accountId: record.accountId,
      price: highestPrice(candidates),
      inputTokens: estimateInputTokens(inference, model.contextWindow),
      maxOutputTokens: Math.min(inference.maxTokens ?? model.maxOutputTokens, model.maxOutputTokens),
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
      });
    } catch (error) {
      await releaseHold(app.database.db, reservation.holdId);
      throw error;
    }
  } catch (error) {
    return errorResponse(dialect, error, idHeaders);
  }
}
