import type { Dialect } from "../../dialects/dialect";
import { priceRequest, quoteRequestOf, unservableReason } from "../../x402/price-request";
import { servePaid } from "../../x402/serve-paid";
import type { ApiCall } from "../route-definition";
import { sellWithX402 } from "./sell-with-x402";

/**
 * POST /proxy/x402/v1/chat/completions and /proxy/x402/v1/messages: accountless inference,
 * priced like a prepaid request (its worst case), sold over x402, served streaming included
 * with a PAYMENT-RESPONSE receipt.
 */
export async function serveX402Inference(call: ApiCall<"x402">, dialect: Dialect): Promise<Response> {
  const { app, request, requestId } = call;
  const priced = await priceRequest(app, request, dialect);
  return await sellWithX402(call, {
    bound: priced,
    quoteRequest: () => quoteRequestOf(priced),
    unservable: (cap) => unservableReason(priced, cap),
    serve: (settlement) => servePaid(app, request, priced, settlement, requestId),
  });
}
