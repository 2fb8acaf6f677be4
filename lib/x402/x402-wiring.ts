import type { Database } from "../db/client";
import type { Env } from "../env";
import { GatewayError } from "../errors/gateway-error";
import { log } from "../log";
import type { PaymentRail, RailSet } from "./core/payment-rail";
import { pruneExpiredQuotes } from "./core/quote-store";
import { railRegistry } from "./rails/registry";

/** This gateway's x402 wiring (`AppContext.x402`): its rails and their upkeep. */
export interface X402Wiring {
  /**
   * The rails this gateway is configured for, in registration order (the order their entries
   * are offered); empty when x402 is not configured. Built on first use, as before: a
   * misconfigured rail fails its x402 requests, not the start.
   */
  rails(): readonly PaymentRail[];
  /** Every registered family, configured or not, as headers and messages name them. */
  registered: RailSet["registered"];
  /**
   * Reconciles every rail in the background, at most once a minute. Called from the quote
   * path (frequent, never carries money, so no paid request waits on it) and from the
   * maintenance loop, so pending payments finish even without quote traffic.
   */
  scheduleReconciliation(): void;
}

export function createX402Wiring(env: Env, database: Database): X402Wiring {
  let built: readonly PaymentRail[] | undefined;
  const rails = (): readonly PaymentRail[] => {
    built ??= railRegistry.flatMap((definition) => definition.create({ env, database }) ?? []);
    return built;
  };

  let lastReconciliationAt = 0;
  return {
    rails,
    registered: railRegistry.map(({ family, label }) => ({ family, label })),
    scheduleReconciliation() {
      const now = Date.now();
      if (lastReconciliationAt > now - 60_000) return;
      lastReconciliationAt = now;
      Promise.all(rails().map((rail) => rail.reconcile()))
        .then(() => pruneExpiredQuotes(database))
        .catch((error: unknown) => {
          log.warn("x402: reconciling pending claims failed", { error });
        });
    },
  };
}

/** The configured rails (with every registered family), or the 503 an x402 path answers when there are none. */
export function offeredRails(x402: X402Wiring): RailSet {
  const configured = x402.rails();
  if (configured.length === 0) {
    throw new GatewayError("service_unavailable", "x402 payments are not configured on this gateway", {
      headers: { "x-should-retry": "false" },
    });
  }
  return { configured, registered: x402.registered };
}
