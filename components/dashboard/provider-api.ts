/**
 * The host API as the provider page calls it: the host token goes in the Authorization header
 * of same-origin requests, never in a URL. The token is kept in this tab's sessionStorage only.
 */
import {
  type HostAgent,
  type HostBalance,
  type HostListing,
  type HostPayout,
  type HostProfile,
  type HostTransaction,
  type HostTransactionPage,
  hostAgentSchema,
  hostBalanceSchema,
  hostListingsSchema,
  hostPayoutSchema,
  hostProfileSchema,
  hostTransactionPageSchema,
} from "@pod-gateway/contracts/host-api";
import type { z } from "zod";

export const hostTokenKey = "pod-provider-host-token";

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

/** One host API call, its answer parsed with the contract's schema (an error envelope's message is thrown). */
async function call<Schema extends z.ZodType>(
  token: string,
  path: string,
  schema: Schema,
  init: RequestInit = {},
): Promise<z.infer<Schema>> {
  const response = await fetch(path, {
    ...init,
    cache: "no-store",
    headers: { ...init.headers, authorization: `Bearer ${token}` },
  });
  const body: unknown = await response.json().catch(() => ({}));
  if (!response.ok) {
    const message = (body as { error?: { message?: string } }).error?.message;
    throw new HostApiError(response.status, message ?? `HTTP ${response.status}`);
  }
  return schema.parse(body);
}

/** One page of the host's ledger lines, newest first, older than `before` when given. */
export function loadTransactions(token: string, before?: string, limit = 100): Promise<HostTransactionPage> {
  const query = new URLSearchParams({ limit: String(limit), ...(before ? { before } : {}) });
  return call(token, `/v1/host/transactions?${query}`, hostTransactionPageSchema);
}

export async function loadProvider(token: string): Promise<ProviderData> {
  const [profile, listings, balance, agent, transactions] = await Promise.all([
    loadProfile(token),
    call(token, "/v1/host/listings", hostListingsSchema),
    call(token, "/v1/host/balance", hostBalanceSchema),
    call(token, "/v1/host/agent", hostAgentSchema),
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
  return call(token, "/v1/host/profile", hostProfileSchema);
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
  return call(token, "/v1/host/withdraw", hostPayoutSchema, {
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
