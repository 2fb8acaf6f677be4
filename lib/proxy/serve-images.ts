import { z } from "zod";
import { safeParseJson } from "../dialects/translate/json-value";
import { GatewayError } from "../errors/gateway-error";
import { BufferedResponse } from "../http/buffered-response";
import type { AbortHandle } from "../light-abort";
import { emptyUsage } from "../pricing/cost";
import { dispatchWithFailover } from "./dispatch-with-failover";
import { type PreparedImages, rateOfDelivered } from "./prepare-images";
import { readUpstreamBody } from "./read-upstream-body";
import type { ReservedHold } from "./reserve";
import type { ServingServices } from "./serve-reserved";
import { settleRequest } from "./settle-request";

/** OpenAI's images answer, as far as billing reads it: the images, and (gpt-image-1) what it chose for `auto`. */
const imagesReply = z.looseObject({
  data: z.array(z.unknown()).max(100),
  size: z.string().max(20).optional(),
  quality: z.string().max(20).optional(),
});

const isImage = (item: unknown) =>
  typeof item === "object" &&
  item !== null &&
  ((typeof (item as { url?: unknown }).url === "string" && (item as { url: string }).url.length > 0) ||
    (typeof (item as { b64_json?: unknown }).b64_json === "string" &&
      (item as { b64_json: string }).b64_json.length > 0));

/**
 * Sends a held images request to its sources with failover and bills each image delivered
 * (at most `n`) at its size and quality: the hold covers `n` at the dearest source, the charge
 * is what came back. An answer without an image is a failure and costs nothing, and so is any
 * error before an answer: the caller's `release` puts the hold back.
 */
export async function serveImages(
  app: ServingServices,
  signal: AbortHandle,
  prepared: PreparedImages,
  held: { requestId: string; accountId: bigint; hold: ReservedHold },
): Promise<Response> {
  const success = await dispatchWithFailover(
    prepared.sources.map((source) => source.candidate),
    {
      signal,
      forwardHeaders: {},
      headersTimeoutMs: app.env.UPSTREAM_TIMEOUT_MS,
      // Each source's body was built when it was prepared; its dispatch sends that.
      buildBody: () => "",
    },
  );
  const text = await readUpstreamBody(success.response, {
    timeoutMs: app.env.UPSTREAM_TIMEOUT_MS,
    maxBytes: app.env.MAX_UPSTREAM_BODY_BYTES,
    abort: success.abort,
  });
  const reply = imagesReply.safeParse(safeParseJson(text));
  const delivered = reply.success ? Math.min(reply.data.data.filter(isImage).length, prepared.count) : 0;
  if (!reply.success || delivered === 0)
    throw new GatewayError(
      "upstream_error",
      `upstream error: ${success.candidate.providerId} returned no image`,
    );
  const rates = prepared.sources.find((source) => source.candidate === success.candidate)?.rates ?? [];
  const perImage = rateOfDelivered(rates, { size: reply.data.size, quality: reply.data.quality });
  const settled = await settleRequest(app, {
    requestId: held.requestId,
    accountId: held.accountId,
    hold: held.hold,
    // Billed as a price per request: the images delivered at their rate, whatever the tokens.
    candidate: {
      ...success.candidate,
      price: { ...success.candidate.price, requestPrice: perImage * BigInt(delivered) },
    },
    model: prepared.model.id,
    usage: emptyUsage,
    outcome: "completed",
  });
  return new BufferedResponse(text, {
    status: 200,
    headers: {
      "content-type": "application/json",
      "x-request-id": held.requestId,
      "x-balance-remaining": settled.availableAfter.toString(),
      "x-pod-route": success.candidate.route,
      "x-pod-provider-id": success.candidate.providerId,
      "x-pod-cost-microunits": settled.charged.toString(),
      "x-pod-images-delivered": String(delivered),
    },
  });
}
