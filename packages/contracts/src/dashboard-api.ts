/**
 * The API responses the dashboard reads, typed once: the handlers under lib/api build them
 * (`satisfies`), the dashboard's components read them (a token's activity is typed in `./activity`). Amounts are JSON numbers of USDC
 * microunits (or dollars where the name says `_usd`), as the public API documents them.
 */

/** A funding option this gateway has turned off, and why. */
export interface DisabledOption {
  enabled: false;
  reason: string;
}

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
export interface SolanaOptions {
  enabled: true;
  reason: null;
  deposit_address: string;
  deposit_token_account: string;
  usdc_mint: string;
  usdc_decimals: number;
  network: string;
  rpc_url: string;
  memo: string;
  memo_program: string;
  token_program: string;
  commitment: "confirmed" | "finalized";
}

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
  /** Available: what requests in flight do not reserve. */
  usdc_balance: number;
  credit_balance: number;
  deposit_code: string;
  is_active: boolean;
  held_balance: number;
}
