import type { Database } from "../../db/client";
import type { Env } from "../../env";
import { GatewayError } from "../../errors/gateway-error";
import { log } from "../../log";
import { buildEvmServices } from "../evm-services";
import { pruneExpiredQuotes } from "../reconcile-claims";
import { buildX402Services, type X402Services } from "../x402-services";
import { createEvmRail } from "./evm-rail";
import type { PaymentRail } from "./payment-rail";
import { createSolanaRail } from "./solana-rail";

/** This gateway's x402 wiring (`AppContext.x402`): its rails and what they share. */
export interface X402Wiring {
  /**
   * The rails this gateway is configured for, in the order their entries are offered: Solana
   * (X402_PAY_TO) first, so position-based readers of the reference service still see its
   * native entries first, then Base (X402_BASE_PAY_TO). Empty when x402 is not configured.
   * Built on first use, as before: a misconfigured rail fails its x402 requests, not the start.
   */
  rails(): readonly PaymentRail[];
  /** The Solana services, built on first use; a failed build is not kept (503 until configured). */
  solana(): Promise<X402Services>;
  /** Replaces parts of the Solana services (a local price source, clock or co-signer in tests). */
  configureSolana(changes: Partial<X402Services>): Promise<X402Services>;
  /**
   * Reconciles every rail in the background, at most once a minute. Called from the quote
   * path (frequent, never carries money, so no paid request waits on it) and from the
   * maintenance loop, so pending payments finish even without quote traffic.
   */
  scheduleReconciliation(): void;
}

export function createX402Wiring(env: Env, database: Database): X402Wiring {
  let solana: Promise<X402Services> | undefined;
  const services = (): Promise<X402Services> => {
    if (!solana) {
      const pending = buildX402Services(env);
      solana = pending;
      pending.catch(() => {
        if (solana === pending) solana = undefined;
      });
    }
    return solana;
  };

  let built: readonly PaymentRail[] | undefined;
  const rails = (): readonly PaymentRail[] => {
    if (!built) {
      const list: PaymentRail[] = [];
      if (env.X402_PAY_TO) {
        list.push(createSolanaRail({ database, holdTtlSeconds: env.HOLD_TTL_SECONDS, services }));
      }
      const evm = buildEvmServices(env);
      if (evm) list.push(createEvmRail(evm));
      built = list;
    }
    return built;
  };

  let lastReconciliationAt = 0;
  return {
    rails,
    solana: services,
    async configureSolana(changes) {
      const next = { ...(await services()), ...changes };
      solana = Promise.resolve(next);
      return next;
    },
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

/** The configured rails, or the 503 an x402 path answers when there are none. */
export function offeredRails(x402: X402Wiring): readonly PaymentRail[] {
  const rails = x402.rails();
  if (rails.length === 0) {
    throw new GatewayError("service_unavailable", "x402 payments are not configured on this gateway", {
      headers: { "x-should-retry": "false" },
    });
  }
  return rails;
}
