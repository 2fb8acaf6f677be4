import { z } from "zod";

/**
 * The API responses the dashboard reads, typed once: the handlers under lib/api build them
 * (`satisfies`), the dashboard's components read them (a token's activity is typed in `./activity`). Amounts are JSON numbers of USDC
 * microunits (or dollars where the name says `_usd`), as the public API documents them.
 */

/** A funding option this gateway has turned off, and why. */
export const disabledOptionSchema = z.object({ enabled: z.literal(false), reason: z.string() });
export type DisabledOption = z.infer<typeof disabledOptionSchema>;

export interface CardQuote {
  credit_usd: number;
  fee_usd: number;
  total_usd: number;
}

export interface CardOptions {
  enabled: boolean;
  reason: string | null;
  min_usd: number;
  max_usd: number;
  presets_usd: number[];
  fee: { mode: "pass_on" | "absorb"; percent_bps: number; fixed_cents: number; description: string };
  quotes: CardQuote[];
  publishable_key: string | null;
}

/** USDC on Solana: the transfer the wallet builds, with the token's deposit code as its memo. */
export const solanaOptionsSchema = z.object({
  enabled: z.literal(true),
  reason: z.null(),
  deposit_address: z.string(),
  deposit_token_account: z.string(),
  usdc_mint: z.string(),
  usdc_decimals: z.number().int(),
  network: z.string(),
  rpc_url: z.string(),
  memo: z.string(),
  memo_program: z.string(),
  token_program: z.string(),
  commitment: z.enum(["confirmed", "finalized"]),
});
export type SolanaOptions = z.infer<typeof solanaOptionsSchema>;

/** USDC on Base: the wallet signs what GET /proxy/<token>/fund/base/typed-data hands out. */
export interface BaseOptions {
  enabled: true;
  reason: null;
  network: string;
  chain_id: number;
  usdc: string;
  usdc_decimals: number;
  deposit_address: string;
  min_microunits: number;
}

/** GET /proxy/<token>/funding. */
export interface FundingOptions {
  card: CardOptions;
  solana: SolanaOptions | DisabledOption;
  base: BaseOptions | DisabledOption;
}

/** GET /proxy/<token>/balance. */
export interface TokenBalance {
  api_token: string;
  /** Available: what requests in flight do not reserve, less what the token owes (`owed_balance`); never below 0. */
  usdc_balance: number;
  credit_balance: number;
  deposit_code: string;
  is_active: boolean;
  held_balance: number;
  /** Owed back after card refunds or disputes the balance could not cover; paid first from any funding. */
  owed_balance: number;
}
