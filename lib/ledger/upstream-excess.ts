import { and, asc, eq, like } from "drizzle-orm";
import type { Executor } from "../db/client";
import { accounts } from "../db/schema";
import { upstreamExcessPrefix } from "./accounts";

export interface UpstreamExcess {
  /** Per centralized provider, what it reported beyond what the gateway billed, valued at the route's price. */
  providers: { provider: string; microunits: bigint }[];
  totalMicrounits: bigint;
}

/**
 * The operator's cost beyond its revenue: each upstream-excess account is debited as the
 * treasury is credited for the upstream's bill, so the excess is minus its balance.
 */
export async function readUpstreamExcess(executor: Executor): Promise<UpstreamExcess> {
  const rows = await executor
    .select({ ref: accounts.ref, balance: accounts.balance })
    .from(accounts)
    .where(and(eq(accounts.kind, "external"), like(accounts.ref, `${upstreamExcessPrefix}%`)))
    .orderBy(asc(accounts.ref));
  const providers = rows.map((row) => ({
    provider: row.ref.slice(upstreamExcessPrefix.length),
    microunits: -row.balance,
  }));
  return {
    providers,
    totalMicrounits: providers.reduce((total, one) => total + one.microunits, 0n),
  };
}
