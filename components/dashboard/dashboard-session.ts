import type { LedgerServices } from "@/lib/ledger/ledger-services";
import type { Services } from "@/lib/services";
import type { TokenRecord } from "@/lib/tokens/find-token";

/** The signed-in token a dashboard page renders for (read by `app/dashboard/read-dashboard-session.ts`). */
export interface DashboardSession {
  app: Services & Pick<LedgerServices, "leases">;
  token: string;
  record: TokenRecord;
  /** Where this gateway is reached, for the snippets: PUBLIC_BASE_URL or the page's own origin. */
  baseUrl: string;
}
