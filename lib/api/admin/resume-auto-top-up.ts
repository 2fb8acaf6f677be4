import { z } from "zod";
import { resumeAutoTopUp as clearSuspension } from "../../balance-watch/auto-top-up";
import { GatewayError } from "../../errors/gateway-error";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { isUuid } from "../../ids";
import { log } from "../../log";
import { findToken } from "../../tokens/find-token";
import type { ApiCall } from "../route-definition";

const resumeSchema = z.object({
  api_token: z.string(),
  /** Who cleared it and why, for the log. */
  reason: z.string().min(1).max(500),
});

/**
 * POST /v1/admin/auto-top-up/resume – the operator clears the suspension a card dispute put on
 * a token's auto top-up (after looking at the dispute): its saved card may be charged again.
 */
export async function resumeAutoTopUp({ app, request, bodyLimit }: ApiCall<"admin">): Promise<Response> {
  const body = await readValidatedJson(request, resumeSchema, bodyLimit);
  const record = isUuid(body.api_token) ? await findToken(app.database.db, body.api_token) : undefined;
  if (!record) throw new GatewayError("not_found", "token not found");
  const resumed = await clearSuspension(app.database.db, record.id);
  if (resumed) log.info("auto top-up suspension cleared by the operator", { reason: body.reason });
  return jsonResponse({ resumed, was_suspended: resumed });
}
