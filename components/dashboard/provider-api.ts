/**
 * The host API as the provider page calls it: the host token goes in the Authorization header
 * of same-origin requests, never in a URL. The token is kept in this tab's sessionStorage only.
 */
export const hostTokenKey = "pod-provider-host-token";

interface HostProfile {
  provider_id: string;
  display_name: string;
  wallet: string;
  status: string;
  activated_at: string | null;
  bond: {
    deposit_code: string;
    amount_microunits: number;
    destination: string | null;
    memo: string;
    held_microunits: number;
  };
  reputation: HostReputation;
}

/** How the gateway's checks see the host (lib/trust/trust-view.ts). */
export interface HostReputation {
  standing: "good" | "demoted" | "excluded";
  routing: string;
  reasons: string[];
  canaries: { checked: number; failed: number };
  metering_findings_24h: number;
  protocol_violations_24h: number;
}

interface HostListing {
  model: string;
  upstream: string;
  input_per_1m: number;
  output_per_1m: number;
  enabled: boolean;
}

export interface HostPayout {
  id: string;
  amount_microunits: number;
  destination: string;
  status: string;
  signature: string | null;
  error: string | null;
}

interface HostBalance {
  usdc_balance: number;
  maturing_usdc_balance: number;
  withdrawable_usdc_balance: number;
  pending_withdrawals_usdc: number;
}

export interface HostTransaction {
  id: string;
  kind: string;
  amount_microunits: number;
  created_at: string;
}

export interface ProviderData {
  profile: HostProfile;
  listings: HostListing[];
  balance: HostBalance;
  transactions: HostTransaction[];
}

class HostApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

async function call<T>(token: string, path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(path, {
    ...init,
    cache: "no-store",
    headers: { ...init.headers, authorization: `Bearer ${token}` },
  });
  const body = (await response.json().catch(() => ({}))) as T & { error?: { message?: string } };
  if (!response.ok) throw new HostApiError(response.status, body.error?.message ?? `HTTP ${response.status}`);
  return body;
}

export async function loadProvider(token: string): Promise<ProviderData> {
  const [profile, listings, balance, transactions] = await Promise.all([
    call<HostProfile>(token, "/v1/host/profile"),
    call<{ listings: HostListing[] }>(token, "/v1/host/listings"),
    call<HostBalance>(token, "/v1/host/balance"),
    call<{ data: HostTransaction[] }>(token, "/v1/host/transactions?limit=100"),
  ]);
  return { profile, listings: listings.listings, balance, transactions: transactions.data };
}

/** Queues a payout; the idempotency key makes a retried click pay once. */
export function requestWithdrawal(
  token: string,
  input: { amountUsdc: string; destination: string; idempotencyKey: string },
): Promise<HostPayout> {
  return call<HostPayout>(token, "/v1/host/withdraw", {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": input.idempotencyKey },
    body: JSON.stringify({ amount_usdc: input.amountUsdc, destination: input.destination }),
  });
}

/** Earnings (positive entries that are not payouts) per UTC day, oldest first, over `days` days. */
export function earningsPerDay(
  transactions: HostTransaction[],
  days: number,
  now = new Date(),
): { day: string; microunits: number }[] {
  const totals = new Map<string, number>();
  for (const entry of transactions)
    if (entry.amount_microunits > 0)
      totals.set(
        entry.created_at.slice(0, 10),
        (totals.get(entry.created_at.slice(0, 10)) ?? 0) + entry.amount_microunits,
      );
  return Array.from({ length: days }, (_, index) => {
    const day = new Date(now.getTime() - (days - 1 - index) * 86_400_000).toISOString().slice(0, 10);
    return { day, microunits: totals.get(day) ?? 0 };
  });
}
