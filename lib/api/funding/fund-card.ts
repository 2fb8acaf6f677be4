import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { cardSessions } from "../../db/schema";
import { badRequest, GatewayError } from "../../errors/gateway-error";
import { centsToMicrounits, quoteCard } from "../../funding/card-fee";
import { type CardConfig, cardSettings } from "../../funding/card-settings";
import { createCardCheckout, creditCentsOf } from "../../funding/create-card-checkout";
import { cardReturnUrls } from "../../funding/dashboard-urls";
import { publicBaseUrl } from "../../http/public-urls";
import { readJsonBody } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { readTokenBalance } from "../../tokens/token-balance";
import type { ApiServices } from "../api-services";
import type { ApiCall } from "../route-definition";

const noStore = { "cache-control": "no-store" };
const bodySchema = z.object({ amount_usd: z.unknown() });

function enabledCard(app: ApiServices): CardConfig {
  const card = cardSettings(app.env);
  if (!card.enabled)
    throw new GatewayError("service_unavailable", card.reason, { headers: { "x-should-retry": "false" } });
  return card;
}

const usd = (cents: number) => cents / 100;

/** POST /proxy/<token>/fund/card {"amount_usd": 20} – a Stripe Checkout Session to pay by card. */
export async function fundCard(call: ApiCall<"token">): Promise<Response> {
  const { app, request, principal: record } = call;
  const card = enabledCard(app);
  const parsed = bodySchema.safeParse(await readJsonBody(request, call.bodyLimit));
  if (!parsed.success) throw badRequest("expected a JSON object with amount_usd");
  const cents = creditCentsOf(card, parsed.data.amount_usd);
  const checkout = await createCardCheckout(
    app.database.db,
    card,
    record,
    cents,
    cardReturnUrls(app.env, publicBaseUrl(app, request)),
  );
  return jsonResponse(
    {
      checkout_url: checkout.checkoutUrl,
      session_id: checkout.sessionId,
      credit_usd: usd(checkout.quote.creditCents),
      fee_usd: usd(checkout.quote.feeCents),
      total_usd: usd(checkout.quote.totalCents),
      credit_microunits: Number(centsToMicrounits(checkout.quote.creditCents)),
    },
    201,
    noStore,
  );
}

/** GET /proxy/<token>/fund/card/quote?amount_usd=20 – what a top-up costs, before paying. */
export async function quoteCardFunding(call: ApiCall<"token">): Promise<Response> {
  const { app, request } = call;
  const card = cardSettings(app.env);
  const raw = new URL(request.url).searchParams.get("amount_usd");
  const cents = creditCentsOf(card, raw === null || raw.trim() === "" ? undefined : Number(raw));
  const quote = quoteCard(card.fee, cents);
  return jsonResponse({
    credit_usd: usd(quote.creditCents),
    fee_usd: usd(quote.feeCents),
    total_usd: usd(quote.totalCents),
    credit_microunits: Number(centsToMicrounits(quote.creditCents)),
    fee_mode: card.fee.mode,
  });
}

/** GET /proxy/<token>/fund/card/<session_id> – whether a card payment has been credited yet. */
export async function getCardSession(call: ApiCall<"token">): Promise<Response> {
  const { app, principal: record } = call;
  const sessionId = call.params.session ?? "";
  const [session] = await app.database.db
    .select()
    .from(cardSessions)
    .where(and(eq(cardSessions.id, sessionId), eq(cardSessions.accountId, record.accountId)));
  if (!session) throw new GatewayError("not_found", "no such card payment for this token");
  const balance = await readTokenBalance(app, record.accountId);
  return jsonResponse(
    {
      session_id: session.id,
      status: session.status,
      credit_microunits: Number(session.creditMicrounits),
      reversed_microunits: Number(session.reversedMicrounits),
      amount_total: Number(session.amountTotal),
      currency: session.currency,
      created_at: session.createdAt.toISOString(),
      credited_at: session.creditedAt?.toISOString() ?? null,
      usdc_balance: Number(balance.available),
    },
    200,
    noStore,
  );
}
