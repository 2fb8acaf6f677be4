import { and, eq } from "drizzle-orm";
import type { Executor } from "../../lib/db/client";
import { accounts } from "../../lib/db/schema";
import { ensureAccount, systemAccounts } from "../../lib/ledger/accounts";
import { postTransaction } from "../../lib/ledger/post-transaction";
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

/**
 * A token account funded with `amount` from an external source, and the system accounts a
 * settlement names (treasury, inference loss): what a test writing settlements by hand needs.
 */
export async function fundedSettlementAccounts(db: Executor, ref: string, amount: bigint) {
  const accountId = await ensureAccount(db, "token", ref);
  const source = await ensureAccount(db, "external", "test-funding");
  await postTransaction(db, {
    kind: "admin_credit",
    idempotencyKey: `fund:${ref}`,
    entries: [
      { accountId: source, amount: -amount },
      { accountId, amount },
    ],
  });
  return {
    accountId,
    treasuryAccountId: await ensureAccount(db, systemAccounts.treasury.kind, systemAccounts.treasury.ref),
    lossAccountId: await ensureAccount(
      db,
      systemAccounts.inferenceLoss.kind,
      systemAccounts.inferenceLoss.ref,
    ),
  };
}
