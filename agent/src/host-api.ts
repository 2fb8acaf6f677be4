/**
 * The gateway's host API as the agent calls it with the host token (GET /v1/host/profile):
 * the host's status and its bond, with what a wallet needs to post it on Solana.
 */
interface BondChain {
  enabled: boolean;
  reason: string | null;
  deposit_address?: string;
  deposit_token_account?: string;
  usdc_mint?: string;
  usdc_decimals?: number;
  network?: string;
  rpc_url?: string;
  memo?: string;
  memo_program?: string;
  token_program?: string;
  commitment?: "confirmed" | "finalized";
}

export interface HostProfile {
  provider_id: string;
  status: string;
  bond: {
    deposit_code: string;
    amount_microunits: number;
    held_microunits: number;
    destination: string | null;
    memo: string;
    solana: BondChain;
  };
}

export async function fetchHostProfile(gateway: string, hostToken: string): Promise<HostProfile> {
  const response = await fetch(`${gateway.replace(/\/+$/, "")}/v1/host/profile`, {
    headers: { authorization: `Bearer ${hostToken}` },
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
    throw new Error(`the gateway answered ${response.status}: ${body.error?.message ?? "no reason given"}`);
  }
  return (await response.json()) as HostProfile;
}

/** "50 USDC", "12.5 USDC": whole microunits as USDC for people. */
export function usdc(microunits: number | bigint): string {
  const value = BigInt(microunits);
  const whole = value / 1_000_000n;
  const fraction = (value % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${whole}${fraction ? `.${fraction}` : ""} USDC`;
}
