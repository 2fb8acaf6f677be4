import { tokenCountSchema } from "@pod-gateway/contracts/bounded-values";
import { z } from "zod";
import { resolveModelOrThrow } from "../../catalog/unknown-model";
import { safeParseJson } from "../../dialects/translate/json-value";
import { parseRequestBody } from "../../dialects/translate/parse-body";
import { upstreamFormats } from "../../dialects/wire-format";
import { GatewayError } from "../../errors/gateway-error";
import { clientAbort } from "../../http/api-request";
import { BufferedResponse } from "../../http/buffered-response";
import { readBodyText } from "../../http/read-body";
import { dispatchWithFailover } from "../../proxy/dispatch-with-failover";
import { highestPrice } from "../../proxy/highest-price";
import { readUpstreamBody } from "../../proxy/read-upstream-body";
import { releaseReservation, reserveBounded } from "../../proxy/reserve";
import { settleRequest } from "../../proxy/settle-request";
import { centralizedCandidates } from "../../routing/centralized-candidates";
import type { ApiCall } from "../route-definition";

/** OpenAI's own bounds: 2048 inputs a request, token ids are non-negative 32-bit integers. */
const maxInputs = 2048;
const tokenIds = z
  .array(
    z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1),
  )
  .min(1);

const embeddingsRequestSchema = z.looseObject({
  model: z.string().trim().min(1, "model is required"),
  input: z.union([
    z.string().min(1),
    z.array(z.string().min(1)).min(1).max(maxInputs),
    tokenIds,
    z.array(tokenIds).min(1).max(maxInputs),
  ]),
  dimensions: z.number().int().positive().max(65_536).nullish(),
  encoding_format: z.enum(["float", "base64"]).nullish(),
  user: z.string().nullish(),
});
type EmbeddingsInput = z.infer<typeof embeddingsRequestSchema>["input"];

const upstreamUsage = z.object({
  usage: z.object({ prompt_tokens: tokenCountSchema }),
});

const isTokenArray = (input: readonly unknown[]): input is number[] =>
  input.every((item) => typeof item === "number");

/**
 * The most input tokens the request can be billed for: token arrays exactly, text at the
 * chat estimate (half its bytes, generously), every input at most the model's window.
 */
function inputTokenBound(input: EmbeddingsInput, contextWindow: number): number {
  const items: ReadonlyArray<string | number[]> =
    typeof input === "string" ? [input] : isTokenArray(input) ? [input] : input;
  return items.reduce((sum, item) => {
    const tokens = typeof item === "string" ? Math.ceil(Buffer.byteLength(item) / 2) + 16 : item.length;
    return sum + Math.min(tokens, contextWindow);
  }, 0);
}

/**
 * POST /proxy/<token>/v1/embeddings – OpenAI's embeddings API (a string, strings, token
 * arrays; `dimensions`, `encoding_format`) for the catalog's embedding models, routed to the
 * configured OpenAI-format sources with failover, held at the worst case of its input and
 * billed per input token from the upstream's usage. Not offered over x402.
 */
export async function handleEmbeddings(call: ApiCall<"token">): Promise<Response> {
  const { app, request, requestId, principal } = call;
  const raw = await readBodyText(request, call.bodyLimit);
  const parsed = safeParseJson(raw);
  if (parsed === undefined) throw new GatewayError("bad_request", "request body must be valid JSON");
  const body = parseRequestBody(embeddingsRequestSchema, parsed);
  const model = await resolveModelOrThrow(app, body.model);
  if (model.kind !== "embedding") {
    throw new GatewayError("bad_request", `${model.id} is not an embedding model`, { param: "model" });
  }
  // Anthropic has no embeddings API; only OpenAI-format sources can serve one.
  const candidates = centralizedCandidates(app, model).filter(
    (candidate) => upstreamFormats[candidate.dialect].paths.embeddings !== undefined,
  );
  if (candidates.length === 0) {
    throw new GatewayError("no_provider", `no configured provider serves ${model.id}`);
  }
  const inputTokens = inputTokenBound(body.input, model.contextWindow);
  const reservation = await reserveBounded(
    app,
    { accountId: principal.accountId, price: highestPrice(candidates), inputTokens, key: principal.key },
    app.env.HOLD_BALANCE_SHARE,
  );
  try {
    const success = await dispatchWithFailover(candidates, {
      signal: clientAbort(request),
      forwardHeaders: {},
      headersTimeoutMs: app.env.UPSTREAM_TIMEOUT_MS,
      buildBody: (candidate) => JSON.stringify({ ...body, model: candidate.upstreamModelId }),
      operation: "embeddings",
    });
    const text = await readUpstreamBody(success.response, {
      timeoutMs: app.env.UPSTREAM_TIMEOUT_MS,
      maxBytes: app.env.MAX_UPSTREAM_BODY_BYTES,
      abort: success.abort,
    });
    const answer = safeParseJson(text);
    const usage = upstreamUsage.safeParse(answer);
    // Without a usage report, the bound the hold was sized from is what is billed.
    // A report is taken up to that bound, never past it: the hold is the most a request costs.
    const billedTokens = usage.success ? Math.min(usage.data.usage.prompt_tokens, inputTokens) : inputTokens;
    const settled = await settleRequest(app, {
      requestId,
      accountId: principal.accountId,
      hold: reservation.hold,
      candidate: success.candidate,
      model: model.id,
      usage: { inputTokens: billedTokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      outcome: "completed",
    });
    const reported =
      typeof answer === "object" && answer !== null ? JSON.stringify({ ...answer, model: body.model }) : text;
    return new BufferedResponse(reported, {
      status: success.response.status,
      headers: {
        "content-type": "application/json",
        "x-request-id": requestId,
        "x-balance-remaining": settled.availableAfter.toString(),
        "x-pod-route": success.candidate.route,
        "x-pod-provider-id": success.candidate.providerId,
        "x-pod-cost-microunits": settled.charged.toString(),
      },
    });
  } catch (error) {
    await releaseReservation(app, principal.accountId, reservation.hold);
    throw error;
  }
}
