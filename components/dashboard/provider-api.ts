/**
 * The host API as the provider page calls it: the host token goes in the Authorization header
 * of same-origin requests, never in a URL. The token is kept in this tab's sessionStorage only.
 */
import type { SolanaOptions } from "@pod-gateway/contracts/dashboard-api";

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
    /** What a wallet needs to post the bond (the deposit options with the bond code as memo). */
    solana: SolanaOptions | { enabled: false; reason: string };
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
  explorer_url: string | null;
  created_at: string;
  confirmed_at: string | null;
  error: string | null;
}

interface WithdrawalLimits {
  minimum_microunits: number;
  daily_cap_microunits: number;
  review_above_microunits: number;
  maturity_seconds: number;
}

interface HostBalance {
  usdc_balance: number;
  maturing_usdc_balance: number;
  withdrawable_usdc_balance: number;
  pending_withdrawals_usdc: number;
  frozen: boolean;
  limits: WithdrawalLimits;
  payouts: HostPayout[];
}

export interface HostTransaction {
  id: string;
  kind: string;
  amount_microunits: number;
  created_at: string;
  request_id: string | null;
  model: string | null;
  payout_id: string | null;
}

/** The host's connected agent as routing sees it (GET /v1/host/agent). */
export interface HostAgent {
  connected: boolean;
  agent_version: string | null;
  connected_at: string | null;
  tokens_per_second: number;
  models: {
    model: string;
    format: string;
    input_per_1m: number;
    output_per_1m: number;
    max_concurrent: number;
    free_slots: number;
  }[];
}

export interface ProviderData {
  profile: HostProfile;
  listings: HostListing[];
  balance: HostBalance;
  agent: HostAgent;
  transactions: HostTransaction[];
  /** The cursor for the page of transactions older than these, or null at the first one. */
  nextBefore: string | null;
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

interface TransactionPage {
  data: HostTransaction[];
  next_before: string | null;
}

/** One page of the host's ledger lines, newest first, older than `before` when given. */
export function loadTransactions(token: string, before?: string, limit = 100): Promise<TransactionPage> {
  const query = new URLSearchParams({ limit: String(limit), ...(before ? { before } : {}) });
  return call<TransactionPage>(token, `/v1/host/transactions?${query}`);
}

export async function loadProvider(token: string): Promise<ProviderData> {
  const [profile, listings, balance, agent, transactions] = await Promise.all([
    call<HostProfile>(token, "/v1/host/profile"),
    call<{ listings: HostListing[] }>(token, "/v1/host/listings"),
    call<HostBalance>(token, "/v1/host/balance"),
    call<HostAgent>(token, "/v1/host/agent"),
    loadTransactions(token),
  ]);
  return {
    profile,
    listings: listings.listings,
    balance,
    agent,
    transactions: transactions.data,
    nextBefore: transactions.next_before,
  };
}

/** Just the profile: what the bond's progress polls until the host is active. */
export function loadProfile(token: string): Promise<HostProfile> {
  return call<HostProfile>(token, "/v1/host/profile");
}

/** Every ledger line (up to `maxPages` pages of 200), for the CSV export. */
export async function loadAllTransactions(token: string, maxPages = 50): Promise<HostTransaction[]> {
  const all: HostTransaction[] = [];
  let before: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const next = await loadTransactions(token, before, 200);
    all.push(...next.data);
    if (next.next_before === null) break;
    before = next.next_before;
  }
  return all;
}

/** The ledger lines as CSV (amounts as exact USDC decimals), for a spreadsheet or the accountant. */
export function transactionsCsv(rows: HostTransaction[]): string {
  const quote = (value: string) => (/[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
  const usdc = (microunits: number) => {
    const sign = microunits < 0 ? "-" : "";
    const absolute = Math.abs(microunits);
    return `${sign}${Math.floor(absolute / 1_000_000)}.${String(absolute % 1_000_000).padStart(6, "0")}`;
  };
  const lines = [
    "created_at,kind,model,request_id,payout_id,amount_usdc",
    ...rows.map((row) =>
      [
        row.created_at,
        row.kind,
        row.model ?? "",
        row.request_id ?? "",
        row.payout_id ?? "",
        usdc(row.amount_microunits),
      ]
        .map(quote)
        .join(","),
    ),
  ];
  return `${lines.join("\n")}\n`;
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
