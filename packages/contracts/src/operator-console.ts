import { z } from "zod";

/**
 * What the operator console and the operator's webhook read: the notices an operator is told
 * of, and the answers of the admin actions the console words for its operator. Money is integer
 * USDC microunits.
 */

export const operatorNoticeKindSchema = z.enum([
  "payout_awaiting_approval",
  "host_demoted",
  "host_excluded",
  "agent_disconnected",
  "reconcile_difference",
]);

/** The body of the operator webhook's POST (signed `Pod-Signature: t=…,v1=…`, as balance alerts). */
export const operatorNoticeEventSchema = z.object({
  type: z.literal("operator.notice"),
  kind: operatorNoticeKindSchema,
  /** A payout id, a provider id, or "ledger" for the books. */
  subject: z.string(),
  text: z.string(),
  /** The console page to open about it. */
  console_url: z.string(),
  created_at: z.string(),
});

/** POST /v1/admin/hosts/<id>/slash */
export const slashResponseSchema = z.object({
  slash_id: z.string(),
  provider_id: z.string(),
  status: z.literal("suspended"),
  earnings_microunits: z.number().int(),
  bond_microunits: z.number().int(),
  refunded_microunits: z.number().int(),
  remainder_microunits: z.number().int(),
  callers_refunded: z.number().int(),
});

/** POST /v1/admin/credits */
export const creditResponseSchema = z.object({
  credited: z.boolean(),
  duplicate: z.boolean(),
  transaction_id: z.string().nullable(),
  amount_microunits: z.number().int(),
  usdc_balance: z.number().int(),
});

export type OperatorNoticeKind = z.infer<typeof operatorNoticeKindSchema>;
export type OperatorNoticeEvent = z.infer<typeof operatorNoticeEventSchema>;
export type SlashResponse = z.infer<typeof slashResponseSchema>;
export type CreditResponse = z.infer<typeof creditResponseSchema>;
