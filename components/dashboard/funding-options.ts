import type { FundingOptions } from "@pod-gateway/contracts/dashboard-api";

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
