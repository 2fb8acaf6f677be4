import type { AppContext } from "../app-context";
import { GatewayError } from "../errors/gateway-error";
import { parseJsonText, readBodyText } from "../http/read-body";
import { errorResponse, jsonResponse } from "../http/responses";
import { newId } from "../ids";
import { handleTokenInference } from "../proxy/handle-token-inference";
import { authenticateToken } from "../tokens/authenticate-token";
import { completionAsChunks } from "./completion-as-chunks";
import { createResponsesStreamTranslator } from "./stream-translator";
import { type ResponsesContext, translateResponsesRequest } from "./translate-request";
import { translateChatCompletion } from "./translate-response";

/** Caller headers the chat path reads: routing and spend controls (`X-Pod-*`). */
function forwardedHeaders(headers: Headers): Headers {
  const forwarded = new Headers({ "content-type": "application/json" });
  headers.forEach((value, name) => {
    if (name.toLowerCase().startsWith("x-pod-")) forwarded.set(name, value);
  });
  return forwarded;
}

/** The chat answer's `x-*` headers: request id, balance, route, provider, x-should-retry. */
function gatewayHeaders(chat: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  chat.headers.forEach((value, name) => {
    if (name.toLowerCase().startsWith("x-")) headers[name.toLowerCase()] = value;
  });
  return headers;
}

function streamAnswer(chat: Response, body: ReadableStream<Uint8Array>, context: ResponsesContext): Response {
  return new Response(body.pipeThrough(createResponsesStreamTranslator(context)), {
    status: chat.status,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...gatewayHeaders(chat) },
  });
}

async function translateBody(chat: Response, context: ResponsesContext): Promise<Response> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await chat.text());
  } catch (error) {
    throw new GatewayError("upstream_error", "upstream error: the provider's response is not valid JSON", {
      cause: error,
    });
  }
  if (context.stream) return streamAnswer(chat, completionAsChunks(parsed), context);
  return jsonResponse(translateChatCompletion(parsed, context), chat.status, gatewayHeaders(chat));
}

/** The chat answer in Responses form, keeping its status and gateway headers. */
async function translateAnswer(chat: Response, context: ResponsesContext): Promise<Response> {
  // Errors use the same `{"error": {…}}` envelope in both APIs: they pass through untouched.
  if (!chat.ok) return chat;
  const isStream = (chat.headers.get("content-type") ?? "").includes("text/event-stream");
  if (isStream && chat.body) return streamAnswer(chat, chat.body, context);
  try {
    return await translateBody(chat, context);
  } catch (error) {
    // Already billed: keep the request id and x-should-retry: false so no SDK retries it.
    return errorResponse("openai", error, gatewayHeaders(chat));
  }
}

/**
 * POST /proxy/<token>/v1/responses: the OpenAI Responses API, served statelessly by the
 * Chat Completions path. The request is translated to a chat body and run through
 * handleTokenInference unchanged, so authentication, routing, holds, failover and billing
 * are exactly the chat path's; only the answer is translated back.
 */
export async function handleResponses(app: AppContext, request: Request, token: string): Promise<Response> {
  try {
    // First, so a bad token is a 401 whatever the body says, as on the chat path (cached).
    await authenticateToken(app.database.db, token);
    const rawBody = await readBodyText(request, app.env.MAX_BODY_BYTES);
    const { chatBody, context } = translateResponsesRequest(parseJsonText(rawBody));
    // Usage must reach response.completed; the chat path passes the usage chunk on when asked.
    if (context.stream) chatBody.stream_options = { include_usage: true };
    const chatRequest = new Request(request.url, {
      method: "POST",
      headers: forwardedHeaders(request.headers),
      body: JSON.stringify(chatBody),
      // A client that leaves must still stop the upstream call.
      signal: request.signal,
    });
    const chat = await handleTokenInference(app, chatRequest, token, "openai");
    return await translateAnswer(chat, context);
  } catch (error) {
    return errorResponse("openai", error, { "x-request-id": newId("req") });
  }
}
