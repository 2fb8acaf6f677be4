import { and, eq } from "drizzle-orm";
import { accounts } from "../../lib/db/schema";
import type { TestGateway } from "./gateway";

/** Balance of a ledger account by kind and ref (0 when it was never created). */
export async function accountBalance(gateway: TestGateway, kind: string, ref: string): Promise<bigint> {
  const rows = await gateway.app.database.db
    .select({ balance: accounts.balance })
    .from(accounts)
    .where(and(eq(accounts.kind, kind), eq(accounts.ref, ref)));
  return rows[0]?.balance ?? 0n;
}

export const providerBalance = (gateway: TestGateway, providerId: string) =>
  accountBalance(gateway, "provider", providerId);
export const treasuryBalance = (gateway: TestGateway) => accountBalance(gateway, "treasury", "treasury");
