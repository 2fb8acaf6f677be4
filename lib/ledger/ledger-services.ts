import type { BalanceLeases } from "./balance-lease";
import type { HoldKeeper } from "./hold-keeper";
import type { Journal } from "./settlement-journal";

/** The ledger's per-process services: what holds and settles a request's money. */
export interface LedgerServices {
  /** This process's holds: tagged, kept alive while their request runs, released if it dies. */
  holds: HoldKeeper;
  /** Prepaid holds and settlements against per-process balance leases; undefined with BALANCE_LEASE=off. */
  leases: BalanceLeases | undefined;
  /** Where this process journals what it served before the ledger has it (shared by leases and streams on hold rows). */
  journal: Journal;
}
