import type { BalanceWatcher } from "./balance-watcher";

/** What a charge tells after it is written: the watcher of low balances and auto top-ups. */
export interface BalanceWatchServices {
  /** Low-balance alerts and auto top-up, checked after charges (lib/balance-watch). */
  balanceWatch: BalanceWatcher;
}
