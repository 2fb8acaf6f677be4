import { z } from "zod";
import { disabledOptionSchema, solanaOptionsSchema } from "./dashboard-api";

/**
 * The host API (`/v1/host/*`, a host token in the Authorization header) as the gateway answers
 * it and the provider page reads it: the handlers under lib/api/hosts return these types, the
 * dashboard parses the answers with these schemas. Amounts are JSON numbers of USDC microunits,
 * times ISO strings. A new field is added here first; the compiler then asks the handler for it.
 */

/** How the gateway's checks see the host, and what routing does about it. */
export const hostReputationSchema = z.object({
  standing: z.enum(["good", "demoted", "excluded"]),
  /** What routing does with the host, in words. */
  routing: z.string(),
  reasons: z.array(z.string()),
  canaries: z.object({ checked: z.number().int(), failed: z.number().int() }),
  metering_findings_24h: z.number().int(),
  protocol_violations_24h: z.number().int(),
  /** Jobs accepted and broken in the last hour: no first chunk in time, a stall, a cut answer. */
  broken_jobs_1h: z.number().int(),
  /** Real answers scored against a reference of the model in the last 30 days. */
  answers_checked_30d: z.number().int(),
});
export type HostReputation = z.infer<typeof hostReputationSchema>;

/**
 * One observation on the host's trust record, as the host sees it: what was found and the
 * evidence's figures. Canary verdicts are not among them (a host that could find its canaries
 * among its jobs could learn to tell them): their counts are in the reputation.
 */
export const hostTrustEventSchema = z.object({
  kind: z.string(),
  detail: z.string(),
  created_at: z.string(),
  request_id: z.string().nullable(),
  evidence: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])),
});
export type HostTrustEvent = z.infer<typeof hostTrustEventSchema>;

/** GET /v1/host/profile. */
export const hostProfileSchema = z.object({
  provider_id: z.string(),
  display_name: z.string(),
  wallet: z.string(),
  contact_email: z.string().nullable(),
  status: z.string(),
  enrolled_at: z.string(),
  activated_at: z.string().nullable(),
  bond: z.object({
    deposit_code: z.string(),
    amount_usdc: z.number(),
    amount_microunits: z.number().int(),
    /** Null while on-chain deposits are off: the bond then needs an operator's activation. */
    destination: z.string().nullable(),
    memo: z.string(),
    held_microunits: z.number().int(),
    /** What a wallet needs to post the bond (the deposit options with the bond code as memo). */
    solana: z.union([solanaOptionsSchema, disabledOptionSchema]),
  }),
  reputation: hostReputationSchema,
  /** The newest observations on the host's record (at most 20), with their evidence. */
  trust_events: z.array(hostTrustEventSchema),
  metadata: z.object({ enrollment_code: z.string() }),
});
export type HostProfile = z.infer<typeof hostProfileSchema>;

/** One relay listing (GET /v1/host/listings, PUT /v1/host/listings). */
export const hostListingSchema = z.object({
  model: z.string(),
  relay_key_id: z.string(),
  upstream: z.string(),
  upstream_model_id: z.string(),
  input_per_1m: z.number().int(),
  output_per_1m: z.number().int(),
  enabled: z.boolean(),
  /** A decimal USDC string, or null for no daily cap. */
  daily_cap_usdc: z.string().nullable(),
  earned_last_24h_microunits: z.number().int(),
  centralized_cap: z.object({ input_per_1m: z.number().int(), output_per_1m: z.number().int() }).nullable(),
  within_cap: z.boolean(),
  /** Why routing skips it right now, if it does (a pending host is reported by the profile). */
  excluded_reason: z.enum(["disabled", "above_centralized_cap", "daily_cap_reached"]).nullable(),
  updated_at: z.string(),
});
export type HostListing = z.infer<typeof hostListingSchema>;

/** GET /v1/host/listings. */
export const hostListingsSchema = z.object({ listings: z.array(hostListingSchema) });
export type HostListings = z.infer<typeof hostListingsSchema>;

/** A payout (POST /v1/host/withdraw answers one; the balance lists them). */
export const hostPayoutSchema = z.object({
  id: z.string(),
  kind: z.string(),
  amount_microunits: z.number().int(),
  destination: z.string(),
  status: z.string(),
  signature: z.string().nullable(),
  explorer_url: z.string().nullable(),
  created_at: z.string(),
  confirmed_at: z.string().nullable(),
  error: z.string().nullable(),
});
export type HostPayout = z.infer<typeof hostPayoutSchema>;

/** GET /v1/host/balance. */
export const hostBalanceSchema = z.object({
  provider_id: z.string(),
  usdc_balance: z.number().int(),
  withdrawable_usdc_balance: z.number().int(),
  maturing_usdc_balance: z.number().int(),
  /** True while the host is suspended: nothing may be withdrawn. */
  frozen: z.boolean(),
  pending_withdrawals_usdc: z.number().int(),
  limits: z.object({
    minimum_microunits: z.number().int(),
    daily_cap_microunits: z.number().int(),
    review_above_microunits: z.number().int(),
    maturity_seconds: z.number().int(),
  }),
  payouts: z.array(hostPayoutSchema),
});
export type HostBalance = z.infer<typeof hostBalanceSchema>;

/** One ledger line of the host's earnings account: a job's credit (+) or a withdrawal (−). */
export const hostTransactionSchema = z.object({
  id: z.string(),
  kind: z.string(),
  amount_microunits: z.number().int(),
  created_at: z.string(),
  request_id: z.string().nullable(),
  model: z.string().nullable(),
  payout_id: z.string().nullable(),
  /** A job's signed usage receipt (a compact JWS), when one was issued. */
  receipt: z.string().nullable(),
});
export type HostTransaction = z.infer<typeof hostTransactionSchema>;

/** GET /v1/host/transactions?limit=&before=. */
export const hostTransactionPageSchema = z.object({
  data: z.array(hostTransactionSchema),
  /** The cursor for the page older than this one, or null at the last. */
  next_before: z.string().nullable(),
});
export type HostTransactionPage = z.infer<typeof hostTransactionPageSchema>;

/** One model the host's agent offers, as routing sees it now. */
export const hostAgentModelSchema = z.object({
  model: z.string(),
  format: z.string(),
  input_per_1m: z.number().int(),
  output_per_1m: z.number().int(),
  max_concurrent: z.number().int(),
  free_slots: z.number().int(),
});

/** GET /v1/host/agent: the host's connected agent as routing sees it. */
export const hostAgentSchema = z.object({
  connected: z.boolean(),
  /**
   * `connected`: heard within the heartbeat timeout, its jobs completing; `stalled`: connected,
   * but the last job it took broke (no first chunk in time, a stall, a cut answer) and none has
   * completed since; `offline`: no live connection.
   */
  state: z.enum(["connected", "stalled", "offline"]),
  /** When the gateway last heard the agent (a heartbeat, its connection, its goodbye), or null if never. */
  last_seen_at: z.string().nullable(),
  /** While `stalled`: the broken job that made it so. */
  stalled: z.object({ since: z.string(), kind: z.string(), detail: z.string() }).nullable(),
  agent_version: z.string().nullable(),
  connected_at: z.string().nullable(),
  tokens_per_second: z.number(),
  models: z.array(hostAgentModelSchema),
});
export type HostAgent = z.infer<typeof hostAgentSchema>;
