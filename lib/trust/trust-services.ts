import type { LedgerServices } from "../ledger/ledger-services";
import type { ReputationBook } from "../providers/host-standing";
import type { Services } from "../services";

/**
 * What recording trust events and slashing read: the host's reputation (re-read at once),
 * the live registry (a slashed host is disconnected) and the leases (flushed before the
 * host's earnings are counted).
 */
export interface TrustServices extends Services, Pick<LedgerServices, "leases"> {
  routing: { registry: { disconnect(hostId: string): void }; reputation: ReputationBook };
}
