import { z } from "zod";

/**
 * Low-balance alerts and auto top-up by card, as `/proxy/<token>/balance-alert` and
 * `/proxy/<token>/auto-top-up` answer and accept them: what the gateway writes and the dashboard
 * reads. Money on the balance side is integer USDC microunits; card amounts are US cents.
 */

/** Thresholds up to $1,000,000. */
export const maxThresholdMicrounits = 1_000_000_000_000;

export const thresholdSchema = z.number().int().min(1).max(maxThresholdMicrounits);

/** PUT /proxy/<token>/balance-alert */
export const balanceAlertRequestSchema = z.object({
  threshold_microunits: thresholdSchema,
  /** Where the signed alert is POSTed; null or absent for the dashboard banner only. */
  webhook_url: z.string().max(2048).nullable().optional(),
});

export const balanceAlertViewSchema = z.object({
  threshold_microunits: z.number().int(),
  webhook_url: z.string().nullable(),
  /** The HMAC-SHA256 key of the `Pod-Signature` header (`t=<unix>,v1=<hex of HMAC(key, "<t>.<body>")>`). */
  webhook_secret: z.string(),
  /** The balance is below the threshold now (the dashboard shows its banner). */
  below: z.boolean(),
  last_sent_at: z.string().nullable(),
  last_result: z.string().nullable(),
});

/** GET /proxy/<token>/balance-alert: null until one is set. */
export const balanceAlertResponseSchema = z.object({ alert: balanceAlertViewSchema.nullable() });

/** The body of the alert POST. */
export const balanceAlertEventSchema = z.object({
  type: z.literal("balance.low"),
  created_at: z.string(),
  threshold_microunits: z.number().int(),
  available_microunits: z.number().int(),
  deposit_code: z.string(),
});

/** PUT /proxy/<token>/auto-top-up */
export const autoTopUpRequestSchema = z.object({
  enabled: z.boolean(),
  threshold_microunits: thresholdSchema,
  /** What each top-up charges the saved card and credits, in cents ($5 to $10,000). */
  amount_cents: z.number().int().min(500).max(1_000_000),
  /** At most this much per UTC month, in cents. */
  monthly_cap_cents: z.number().int().min(500).max(10_000_000),
});

export const autoTopUpChargeViewSchema = z.object({
  id: z.string(),
  amount_cents: z.number().int(),
  status: z.enum(["pending", "succeeded", "failed"]),
  receipt_url: z.string().nullable(),
  failure: z.string().nullable(),
  created_at: z.string(),
});

export const autoTopUpViewSchema = z.object({
  /** Card payments are configured on this gateway (auto top-up needs them). */
  available: z.boolean(),
  enabled: z.boolean(),
  threshold_microunits: z.number().int(),
  amount_cents: z.number().int(),
  monthly_cap_cents: z.number().int(),
  /** Charged so far this UTC month (succeeded and pending). */
  charged_this_month_cents: z.number().int(),
  card: z.object({ brand: z.string(), last4: z.string() }).nullable(),
  /** Why auto top-up turned itself off (a declined card), in words. */
  last_error: z.string().nullable(),
  /** A card dispute on the account suspended it: no charge until the operator clears it. */
  suspended: z.object({ since: z.string(), reason: z.string() }).nullable(),
  charges: z.array(autoTopUpChargeViewSchema),
});

export const autoTopUpResponseSchema = z.object({ auto_top_up: autoTopUpViewSchema });

/** POST /proxy/<token>/auto-top-up/card: where to send the person to save a card. */
export const cardSetupResponseSchema = z.object({ checkout_url: z.string(), session_id: z.string() });

export type BalanceAlertView = z.infer<typeof balanceAlertViewSchema>;
export type BalanceAlertResponse = z.infer<typeof balanceAlertResponseSchema>;
export type BalanceAlertEvent = z.infer<typeof balanceAlertEventSchema>;
export type AutoTopUpView = z.infer<typeof autoTopUpViewSchema>;
export type AutoTopUpResponse = z.infer<typeof autoTopUpResponseSchema>;
export type CardSetupResponse = z.infer<typeof cardSetupResponseSchema>;
