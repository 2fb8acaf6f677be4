import { type BalanceAlertResponse, balanceAlertRequestSchema } from "@pod-gateway/contracts/balance-watch";
import {
  balanceAlertView,
  deleteBalanceAlert,
  findBalanceAlert,
  putBalanceAlert,
} from "../../balance-watch/balance-alerts";
import { parseWebhookUrl } from "../../balance-watch/webhook-target";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { requireScope } from "../../tokens/key-scopes";
import { readTokenBalance } from "../../tokens/token-balance";
import type { ApiCall } from "../route-definition";

async function answer(call: ApiCall<"token">): Promise<Response> {
  const { app, principal } = call;
  const row = await findBalanceAlert(app.database.db, principal.id);
  const balance = await readTokenBalance(app, principal.accountId);
  const body: BalanceAlertResponse = { alert: row ? balanceAlertView(row, balance.available) : null };
  return jsonResponse(body, 200, { "cache-control": "no-store" });
}

/** GET /proxy/<token>/balance-alert – the low-balance alert, with its webhook's signing secret. */
export async function getBalanceAlert(call: ApiCall<"token">): Promise<Response> {
  requireScope(call.principal, "manage");
  return answer(call);
}

/** PUT /proxy/<token>/balance-alert – sets the threshold and (optionally) the webhook URL. */
export async function setBalanceAlert(call: ApiCall<"token">): Promise<Response> {
  requireScope(call.principal, "manage");
  const input = await readValidatedJson(call.request, balanceAlertRequestSchema, call.bodyLimit);
  const allowPrivate = call.app.env.BALANCE_ALERT_ALLOW_PRIVATE_URLS;
  const webhookUrl = input.webhook_url ? parseWebhookUrl(input.webhook_url, allowPrivate) : null;
  await putBalanceAlert(call.app.database.db, call.principal, {
    thresholdMicrounits: BigInt(input.threshold_microunits),
    webhookUrl,
  });
  call.app.balanceWatch.forget(call.principal.accountId);
  // Already below the new threshold: the alert goes out now, not at the next charge.
  await call.app.balanceWatch.schedule(call.principal.accountId);
  return answer(call);
}

/** DELETE /proxy/<token>/balance-alert */
export async function removeBalanceAlert(call: ApiCall<"token">): Promise<Response> {
  requireScope(call.principal, "manage");
  await deleteBalanceAlert(call.app.database.db, call.principal.id);
  call.app.balanceWatch.forget(call.principal.accountId);
  return jsonResponse({ alert: null }, 200, { "cache-control": "no-store" });
}
