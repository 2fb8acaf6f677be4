import { and, eq } from "drizzle-orm";
import { hostPayouts } from "../../db/schema";
import { GatewayError } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import { isUuid } from "../../ids";
import { operatorOf, recordOperatorAction } from "../../operator-log/operator-actions";
import { payoutView } from "../hosts/payout-view";
import type { ApiCall } from "../route-definition";

/** POST /v1/admin/payouts/<id>/approve – release a withdrawal held for review. */
export async function approvePayout({ app, params, request }: ApiCall<"admin">): Promise<Response> {
  const payoutId = params.id ?? "";
  if (!isUuid(payoutId)) throw new GatewayError("not_found", "payout not found");
  const payout = await app.database.db.transaction(async (tx) => {
    const [approved] = await tx
      .update(hostPayouts)
      .set({ status: "requested", updatedAt: new Date() })
      .where(and(eq(hostPayouts.id, payoutId), eq(hostPayouts.status, "awaiting_approval")))
      .returning();
    if (approved)
      await recordOperatorAction(tx, {
        operator: operatorOf(request),
        action: "payout_approve",
        subject: payoutId,
        detail: { host: approved.hostId, amount_microunits: approved.amount.toString() },
      });
    return approved;
  });
  if (!payout) throw new GatewayError("not_found", "no payout awaiting approval with that id");
  return jsonResponse(payoutView(app.env, payout));
}
