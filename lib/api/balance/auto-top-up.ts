import {
  type AutoTopUpResponse,
  autoTopUpRequestSchema,
  type CardSetupResponse,
} from "@pod-gateway/contracts/balance-watch";
import { autoTopUpView, findAutoTopUp, putAutoTopUp, startCardSetup } from "../../balance-watch/auto-top-up";
import { GatewayError } from "../../errors/gateway-error";
import { cardSettings } from "../../funding/card-settings";
import { dashboardBaseUrl } from "../../funding/dashboard-urls";
import { publicBaseUrl } from "../../http/public-urls";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { requireScope } from "../../tokens/key-scopes";
import type { ApiCall } from "../route-definition";

async function answer(call: ApiCall<"token">): Promise<Response> {
  const row = await findAutoTopUp(call.app.database.db, call.principal.id);
  const body: AutoTopUpResponse = {
    auto_top_up: await autoTopUpView(call.app.database.db, cardSettings(call.app.env).enabled, row),
  };
  return jsonResponse(body, 200, { "cache-control": "no-store" });
}

/** GET /proxy/<token>/auto-top-up – the setting, the saved card and the last charges with receipts. */
export async function getAutoTopUp(call: ApiCall<"token">): Promise<Response> {
  requireScope(call.principal, "manage");
  return answer(call);
}

/** PUT /proxy/<token>/auto-top-up – on or off, threshold, amount and monthly cap. */
export async function setAutoTopUp(call: ApiCall<"token">): Promise<Response> {
  requireScope(call.principal, "manage");
  const input = await readValidatedJson(call.request, autoTopUpRequestSchema, call.bodyLimit);
  await putAutoTopUp(call.app.database.db, call.principal, {
    enabled: input.enabled,
    thresholdMicrounits: BigInt(input.threshold_microunits),
    amountCents: BigInt(input.amount_cents),
    monthlyCapCents: BigInt(input.monthly_cap_cents),
  });
  call.app.balanceWatch.forget(call.principal.accountId);
  // Turned on while already below the threshold: the first top-up happens now.
  if (input.enabled) await call.app.balanceWatch.schedule(call.principal.accountId);
  return answer(call);
}

/** POST /proxy/<token>/auto-top-up/card – a Stripe Checkout page (setup mode) that saves a card. */
export async function setUpAutoTopUpCard(call: ApiCall<"token">): Promise<Response> {
  requireScope(call.principal, "manage");
  const card = cardSettings(call.app.env);
  if (!card.enabled)
    throw new GatewayError("service_unavailable", "card payments are not offered on this gateway");
  const dashboard = dashboardBaseUrl(call.app.env, publicBaseUrl(call.app, call.request));
  const setup = await startCardSetup(call.app.database.db, card, call.principal, {
    success: `${dashboard}/billing?card=saved`,
    cancel: `${dashboard}/billing?card=canceled`,
  });
  const body: CardSetupResponse = { checkout_url: setup.checkoutUrl, session_id: setup.sessionId };
  return jsonResponse(body, 201, { "cache-control": "no-store" });
}
