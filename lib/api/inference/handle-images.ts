import { clientAbort } from "../../http/api-request";
import { perRequestPrice } from "../../pricing/cost";
import { type ImageOperation, prepareImages } from "../../proxy/prepare-images";
import { releaseReservation, reserveBounded } from "../../proxy/reserve";
import { serveImages } from "../../proxy/serve-images";
import { parsePriceCeilings } from "../../routing/price-ceilings";
import type { ApiCall } from "../route-definition";

/**
 * POST /proxy/<token>/v1/images/generations (JSON) and /v1/images/edits (multipart): OpenAI's
 * images API for the catalog's image models, held at `n` × the dearest per-image price of the
 * sources that sell the size and quality asked, billed per image delivered.
 */
async function handleImages(call: ApiCall<"token">, operation: ImageOperation): Promise<Response> {
  const { app, request, requestId, principal } = call;
  const prepared = await prepareImages(app, request, operation, {
    bodyLimit: call.bodyLimit,
    ceilings: parsePriceCeilings(request.headers),
  });
  const reservation = await reserveBounded(
    app,
    {
      accountId: principal.accountId,
      price: perRequestPrice(prepared.worstCaseMicrounits),
      inputTokens: 0,
      key: principal.key,
    },
    app.env.HOLD_BALANCE_SHARE,
  );
  try {
    return await serveImages(app, clientAbort(request), prepared, {
      requestId,
      accountId: principal.accountId,
      hold: reservation.hold,
    });
  } catch (error) {
    await releaseReservation(app, principal.accountId, reservation.hold);
    throw error;
  }
}

export const handleImageGenerations = (call: ApiCall<"token">) => handleImages(call, "generate");
export const handleImageEdits = (call: ApiCall<"token">) => handleImages(call, "edit");
