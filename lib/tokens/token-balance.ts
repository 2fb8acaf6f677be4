import type { AppContext } from "../app-context";
import { type AccountBalance, getAccountBalance } from "../ledger/accounts";

/** A stored balance as its owner should see it: this process's unused lease counts as free again. */
export function correctForLease(app: AppContext, accountId: bigint, stored: AccountBalance): AccountBalance {
  if (!app.leases) return stored;
  const seen = app.leases.view(accountId, stored);
  return { ...seen, available: seen.balance - seen.held };
}

/**
 * A token's balance as its owner should see it: everything this process settled is written
 * first, so a read right after a response shows that response's charge. (Another replica's
 * lease shows as held until it returns, within BALANCE_LEASE_IDLE_MS of its last request.)
 */
export async function readTokenBalance(app: AppContext, accountId: bigint): Promise<AccountBalance> {
  await app.leases?.flush();
  return correctForLease(app, accountId, await getAccountBalance(app.database.db, accountId));
}
