import { z } from "zod";
import { badRequest } from "../../errors/gateway-error";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { requestWithdrawal } from "../../payouts/core/request-withdrawal";
import { isSolanaAddress } from "../../payouts/solana/solana-payout-rail";
import { parseUsdcAmount } from "../../relays/usdc-amount";
import type { ApiCall } from "../route-definition";
import { payoutView } from "./payout-view";

const withdrawSchema = z.object({
  /** A decimal USDC amount such as "12.5". */
  amount_usdc: z.union([z.string(), z.number()]),
  /** A Solana address; the host's enrolled wallet when absent. */
  destination: z.string().trim().optional(),
});

/** POST /v1/host/withdraw (Idempotency-Key header) – queue a USDC payout of earnings to a Solana wallet. */
export async function withdrawEarnings({
  app,
  request,
  principal: host,
  bodyLimit,
}: ApiCall<"host">): Promise<Response> {
  const idempotencyKey = request.headers.get("idempotency-key")?.trim();
  if (!idempotencyKey || idempotencyKey.length > 200) {
    throw badRequest("send an Idempotency-Key header (up to 200 characters) so a retry cannot pay twice");
  }
  const body = await readValidatedJson(request, withdrawSchema, bodyLimit);
  const amount = parseUsdcAmount(body.amount_usdc, "amount_usdc");
  if (amount <= 0n) throw badRequest("amount_usdc must be a positive USDC amount");
  const destination = body.destination ?? host.wallet;
  if (!isSolanaAddress(destination)) throw badRequest("destination must be a Solana address");
  const { payout, replayed } = await requestWithdrawal(app.database.db, app.env, host, {
    amount,
    destination,
    idempotencyKey,
  });
  return jsonResponse(payoutView(app.env, payout), replayed ? 200 : 202, { "cache-control": "no-store" });
}
