import type { SlashResponse } from "@pod-gateway/contracts/operator-console";
import { z } from "zod";
import { GatewayError } from "../../errors/gateway-error";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { isUuid } from "../../ids";
import { operatorOf, recordOperatorAction } from "../../operator-log/operator-actions";
import { slashHost as slash } from "../../trust/slash-host";
import type { ApiCall } from "../route-definition";

const slashSchema = z.object({
  /** What the host did, in words: kept with the slash and in every ledger movement's metadata. */
  reason: z.string().trim().min(1).max(1000),
  evidence: z.record(z.string(), z.unknown()).optional(),
});

/**
 * POST /v1/admin/hosts/<provider_id>/slash – suspends the host and pays its immature earnings
 * and bond back to the callers it served in the maturity window (lib/trust/slash-host.ts).
 */
export async function slashHost({ app, request, params, bodyLimit }: ApiCall<"admin">): Promise<Response> {
  const id = (params.id ?? "").toLowerCase();
  if (!isUuid(id)) throw new GatewayError("not_found", "host not found");
  const body = await readValidatedJson(request, slashSchema, bodyLimit);
  const result = await slash(app, {
    hostId: id,
    trigger: "admin",
    reason: body.reason,
    evidence: body.evidence ?? {},
  });
  await recordOperatorAction(app.database.db, {
    operator: operatorOf(request),
    action: "host_slash",
    subject: id,
    detail: {
      slash_id: result.slashId,
      reason: body.reason,
      refunded_microunits: result.refunded.toString(),
      remainder_microunits: result.remainder.toString(),
    },
  });
  return jsonResponse(
    {
      slash_id: result.slashId,
      provider_id: id,
      status: "suspended",
      earnings_microunits: Number(result.earnings),
      bond_microunits: Number(result.bond),
      refunded_microunits: Number(result.refunded),
      remainder_microunits: Number(result.remainder),
      callers_refunded: result.callers.filter((caller) => caller.refunded > 0n).length,
    } satisfies SlashResponse,
    200,
    { "cache-control": "no-store" },
  );
}
