/** The shape of GET /proxy/<token>/funding (built by the funding backend), as the pages read it. */
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
}

export interface SolanaOptions {
  enabled: boolean;
  reason: string | null;
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
  enabled: boolean;
  reason: string | null;
  network: string;
  chain_id: number;
  usdc: string;
  usdc_decimals: number;
  deposit_address: string;
  min_microunits: number;
}

export interface FundingOptions {
  card: CardOptions;
  solana: SolanaOptions;
  base: BaseOptions;
}

export async function fetchFundingOptions(token: string): Promise<FundingOptions> {
  const response = await fetch(`/proxy/${token}/funding`, { cache: "no-store" });
  if (!response.ok) throw new Error(await errorMessage(response));
  return (await response.json()) as FundingOptions;
}

/** The gateway's JSON error message, or the status when the body has none. */
export async function errorMessage(response: Response): Promise<string> {
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  return body.error?.message ?? `HTTP ${response.status}`;
}

export function formatDollars(value: number): string {
  return `$${value.toFixed(2)}`;
}
