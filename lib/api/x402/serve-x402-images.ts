import { GatewayError } from "../../errors/gateway-error";
import { clientAbort } from "../../http/api-request";
import { type ImageOperation, type PreparedImages, prepareImages } from "../../proxy/prepare-images";
import { serveImages } from "../../proxy/serve-images";
import { parsePriceCeilings } from "../../routing/price-ceilings";
import { requestBodyHash } from "../../x402/core/body-hash";
import { paidHold, servePaidWith } from "../../x402/serve-paid";
import type { ApiCall } from "../route-definition";
import { sellWithX402 } from "./sell-with-x402";

/**
 * POST /proxy/x402/v1/images/generations and /edits: images bought with x402, quoted at
 * `n` × the dearest per-image price of the sources that sell the size and quality asked (the
 * prepaid hold), billed per image delivered out of the payment; the rest stays as the wallet's
 * balance.
 */
/**
 * The sources whose worst case fits a paid cap: routing headers are not part of the bound
 * bytes and prices may have risen since the quote, so every charge stays inside what was paid.
 */
function withinCap(prepared: PreparedImages, cap: bigint): PreparedImages | GatewayError {
  const sources = prepared.sources.filter(({ candidate }) => (candidate.price.requestPrice ?? 0n) <= cap);
  return sources.length > 0
    ? { ...prepared, sources }
    : new GatewayError(
        "no_provider_at_price",
        "No provider can serve this request within its quoted cap any more; request a new quote.",
      );
}

const errorOf = (paid: PreparedImages | GatewayError) => (paid instanceof GatewayError ? paid : undefined);

async function serveX402Images(call: ApiCall<"x402">, operation: ImageOperation): Promise<Response> {
  const { app, request, requestId } = call;
  const prepared = await prepareImages(app, request, operation, {
    bodyLimit: call.bodyLimit,
    ceilings: parsePriceCeilings(request.headers),
  });
  const path = new URL(request.url).pathname;
  const method = request.method.toUpperCase();
  return await sellWithX402(call, {
    bound: { method, path, bodyHash: requestBodyHash(method, path, prepared.rawBody) },
    quoteRequest: () => ({
      method,
      path,
      bodyHash: requestBodyHash(method, path, prepared.rawBody),
      model: prepared.model.id,
      worstCaseMicrounits: prepared.worstCaseMicrounits,
    }),
    unservable: (cap) => errorOf(withinCap(prepared, cap)),
    serve: (settlement) => {
      const paid = withinCap(prepared, settlement.quote.capMicrounits);
      return servePaidWith(app, settlement, requestId, {
        unservable: errorOf(paid),
        serve: () =>
          serveImages(app, clientAbort(request), paid instanceof GatewayError ? prepared : paid, {
            requestId,
            accountId: settlement.walletAccountId,
            hold: paidHold(settlement),
          }),
      });
    },
  });
}

export const serveX402ImageGenerations = (call: ApiCall<"x402">) => serveX402Images(call, "generate");
export const serveX402ImageEdits = (call: ApiCall<"x402">) => serveX402Images(call, "edit");
