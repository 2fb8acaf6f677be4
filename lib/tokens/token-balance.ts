import { getInFlightBalance, netAvailable, type OwnerBalance } from "../ledger/accounts";
import type { LedgerServices } from "../ledger/ledger-services";
import type { Services } from "../services";

/**
 * A balance read without leases (`getInFlightBalance`) as its owner should see it: this
 * process's unwritten charges taken off, its requests in flight counted as held, and what the
 * account owes taken off what it can spend.
 */
export function correctForLease(
  app: Pick<LedgerServices, "leases">,
  accountId: bigint,
  stored: OwnerBalance,
): OwnerBalance {
  if (!app.leases) return stored;
  const seen = app.leases.view(accountId, stored);
  return { ...seen, owed: stored.owed, available: netAvailable(seen.balance, seen.held, stored.owed) };
}

/**
 * A token's balance as its owner should see it: everything this process settled is written
 * first, so a read right after a response shows that response's charge. Held is what requests
 * in flight reserve, never a lease: an idle account shows nothing held. (Another replica's
 * requests in flight are not seen until they settle.)
 */
export async function readTokenBalance(
  app: Pick<Services, "database"> & Pick<LedgerServices, "leases">,
  accountId: bigint,
): Promise<OwnerBalance> {
  await app.leases?.flush();
  return correctForLease(app, accountId, await getInFlightBalance(app.database.db, accountId));
}
