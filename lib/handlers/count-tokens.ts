import type { AppContext } from "../app-context";
import { badRequest, GatewayError } from "../errors/gateway-error";
import { parseJsonText, readBodyText } from "../http/read-body";
import { errorResponse, jsonResponse } from "../http/responses";
import { newId } from "../ids";
import { log } from "../log";
import { resolveModel } from "../routing/resolve-model";
import { authenticateToken } from "../tokens/authenticate-token";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** About four characters a token: what is used when no Anthropic upstream can count exactly. */
function estimateTokens(body: Record<string, unknown>): number {
  const counted = JSON.stringify({ system: body.system, messages: body.messages, tools: body.tools });
  return Math.max(1, Math.ceil(counted.length / 4));
}

/**
 * POST /proxy/<token>/v1/messages/count_tokens – Anthropic's token counter, which Claude Code
 * calls to manage its context. Free, like Anthropic's own: asked of a configured Anthropic
 * upstream when there is one, estimated otherwise (marked with `x-pod-estimated: true`).
 */
export async function handleCountTokens(app: AppContext, request: Request, token: string): Promise<Response> {
  const requestId = newId("req");
  try {
    await authenticateToken(app.database.db, token);
    const parsed = parseJsonText(await readBodyText(request, app.env.MAX_BODY_BYTES));
    if (!isRecord(parsed)) throw badRequest("request body must be a JSON object");
    if (typeof parsed.model !== "string" || parsed.model === "")
      throw badRequest("model is required", { param: "model" });
    if (!Array.isArray(parsed.messages)) throw badRequest("messages must be an array", { param: "messages" });
    const model = resolveModel(app.catalog, parsed.model);
    if (!model)
      throw new GatewayError("model_not_found", `model not found: ${parsed.model}`, { param: "model" });

    const upstream = app.upstreams.get("anthropic");
    const price = app.catalog.pricesFor(model).find((candidate) => candidate.provider === "anthropic");
    if (upstream && price) {
      try {
        const response = await fetch(`${upstream.baseUrl}/v1/messages/count_tokens`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-api-key": upstream.apiKey,
            "anthropic-version": request.headers.get("anthropic-version") ?? "2023-06-01",
          },
          body: JSON.stringify({ ...parsed, model: price.upstreamModelId }),
          signal: AbortSignal.any([request.signal, AbortSignal.timeout(10_000)]),
        });
        const counted: unknown = await response.json();
        if (response.ok && isRecord(counted) && typeof counted.input_tokens === "number") {
          return jsonResponse({ input_tokens: counted.input_tokens }, 200, { "request-id": requestId });
        }
      } catch (error) {
        log.warn("count_tokens upstream failed; estimating", { error });
      }
    }
    return jsonResponse({ input_tokens: estimateTokens(parsed) }, 200, {
      "request-id": requestId,
      "x-pod-estimated": "true",
    });
  } catch (error) {
    return errorResponse("anthropic", error, { "x-request-id": requestId });
  }
}
