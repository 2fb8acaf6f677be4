import type { BalanceWatchServices } from "../balance-watch/balance-watch-services";
import type { CatalogStore } from "../catalog/catalog-store";
import type { BaseDepositSettings } from "../deposits/evm/base-deposit-config";
import type { KeyServices } from "../keys/key-services";
import type { LedgerServices } from "../ledger/ledger-services";
import type { PayoutRail } from "../payouts/core/run-payouts";
import type { TrustFindingSink } from "../providers/trust-finding-sink";
import type { RateLimiter } from "../rate-limit/fixed-window";
import type { ReceiptServices } from "../receipts/receipt-services";
import type { ResponseCacheServices } from "../response-cache/response-cache";
import type { ResponseStoreServices } from "../responses/pending-stores";
import type { RoutingServices } from "../routing/routing-state";
import type { TrustFindingRecorder } from "../trust/trust-finding-recorder";
import type { UsageRecordServices } from "../usage-records/usage-record-services";
import type { X402Wiring } from "../x402/x402-wiring";

/**
 * Everything an API handler may reach (`call.app`), built once per process by the composition
 * root (`compose-app.ts`). Handlers hand lower functions this object, and each lower function
 * names only the members it reads (`Services & LedgerServices`, `RoutingServices`, …), so no
 * feature below the API imports this type.
 */
export interface ApiServices
  extends RoutingServices,
    LedgerServices,
    KeyServices,
    BalanceWatchServices,
    ReceiptServices,
    UsageRecordServices,
    ResponseCacheServices,
    ResponseStoreServices {
  catalogStore: CatalogStore;
  registerLimiter: RateLimiter;
  /** Paid x402 attempts per client address: each one can cost RPC calls and simulations. */
  x402PaymentLimiter: RateLimiter;
  /** Unpaid x402 quotes per client address: each one writes a quote row. */
  x402QuoteLimiter: RateLimiter;
  /** count_tokens calls per token: free to the caller, forwarded on the operator's key. */
  countTokensLimiter: RateLimiter;
  /** USDC deposits on Base: the chain clients and the settling wallet, built on first use. */
  baseDeposits(): BaseDepositSettings;
  /** The host payout wallet and chain, built on first use; undefined without HOST_PAYOUT_SECRET. */
  payoutRail(): Promise<PayoutRail | undefined>;
  /** x402 payments: the configured rails and their background reconciliation. */
  x402: X402Wiring;
  /** Where paid requests hand what they found about a host; stored behind the request (`idle` waits for it). */
  trustFindings: TrustFindingSink & Pick<TrustFindingRecorder, "idle">;
}
