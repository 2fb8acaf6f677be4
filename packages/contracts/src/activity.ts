import { z } from "zod";

/**
 * A token's activity as GET /proxy/<token>/transactions answers it (and its CSV export): the
 * shape the gateway writes and the dashboard reads. Amounts are signed integer microunits.
 */

/** What people read for each ledger kind a token's account can see. */
export const activityKindNames: Readonly<Record<string, string>> = {
  inference: "Request",
  admin_credit: "Credit from the operator",
  card_credit: "Card payment",
  card_auto_top_up: "Auto top-up (card)",
  card_refund: "Card payment refunded",
  card_dispute: "Card payment disputed",
  card_dispute_won: "Dispute won: credit returned",
  receivable_collected: "Owed amount collected",
  solana_deposit: "USDC deposit (Solana)",
  solana_deposit_assigned: "USDC deposit (Solana), assigned by the operator",
  base_deposit: "USDC deposit (Base)",
};

/** A kind's name, or the kind itself made readable when it is new. */
export function activityKindName(kind: string): string {
  return activityKindNames[kind] ?? kind.replaceAll("_", " ").replace(/^./, (first) => first.toUpperCase());
}

/**
 * Where a request was served: the marketplace, a key relay, a centralized provider, or the
 * response cache (an answer kept from an earlier identical request, billed at the cache's price).
 */
export const routeSchema = z.enum(["marketplace", "key-relay", "centralized", "cache"]);

export const routeNames: Readonly<Record<z.infer<typeof routeSchema>, string>> = {
  marketplace: "Marketplace",
  "key-relay": "Key relay",
  centralized: "Centralized",
  cache: "Cache",
};

/** The filters the list and its export take (query parameters). */
export const activityFilterSchema = z.object({
  kind: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,47}$/)
    .optional(),
  model: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\x21-\x7e]+$/)
    .optional(),
  route: routeSchema.optional(),
});

export const transactionRowSchema = z.object({
  id: z.string(),
  kind: z.string(),
  /** The kind in words: "Card payment", "Request", … */
  label: z.string(),
  amount_microunits: z.number().int(),
  created_at: z.string(),
  request_id: z.string().nullable().optional(),
  model: z.string().nullable().optional(),
  route: z.string().nullable().optional(),
  provider_id: z.string().nullable().optional(),
  /** The API key that made the request (its label), when not the token itself. */
  api_key: z.string().nullable().optional(),
  input_tokens: z.number().nullable().optional(),
  output_tokens: z.number().nullable().optional(),
  cache_read_tokens: z.number().nullable().optional(),
  cache_write_tokens: z.number().nullable().optional(),
  reason: z.string().nullable().optional(),
  /** Requests: the signed usage receipt, a compact JWS (`npx pod-gateway verify-receipt`). */
  receipt: z.string().nullable().optional(),
  /** Card payments: where Stripe's receipt opens (the gateway's link redirects to it). */
  receipt_url: z.string().nullable().optional(),
});

export const transactionsPageSchema = z.object({
  api_token: z.string(),
  transactions: z.array(transactionRowSchema),
  next_cursor: z.string().nullable(),
});

export type ActivityFilter = z.infer<typeof activityFilterSchema>;
export type TransactionRow = z.infer<typeof transactionRowSchema>;
export type TransactionsPage = z.infer<typeof transactionsPageSchema>;
