import type { AppContext } from "../../app-context";
import { GatewayError } from "../../errors/gateway-error";
import { buildEvmServices } from "../evm-services";
import { createEvmRail } from "./evm-rail";
import type { PaymentRail } from "./payment-rail";
import { createSolanaRail } from "./solana-rail";

const railsByApp = new WeakMap<AppContext, readonly PaymentRail[]>();

/**
 * The rails this gateway is configured for, in the order their entries are offered: Solana
 * (X402_PAY_TO) first, so position-based readers of the reference service still see its
 * native entries first, then Base (X402_BASE_PAY_TO).
 */
export function configuredRails(app: AppContext): readonly PaymentRail[] {
  let rails = railsByApp.get(app);
  if (!rails) {
    const built: PaymentRail[] = [];
    if (app.env.X402_PAY_TO) built.push(createSolanaRail(app));
    const evm = buildEvmServices(app.env);
    if (evm) built.push(createEvmRail(evm));
    rails = built;
    railsByApp.set(app, rails);
  }
  return rails;
}

/** The configured rails, or the 503 an x402 path answers when there are none. */
export function paymentRailsOf(app: AppContext): readonly PaymentRail[] {
  const rails = configuredRails(app);
  if (rails.length === 0) {
    throw new GatewayError("service_unavailable", "x402 payments are not configured on this gateway", {
      headers: { "x-should-retry": "false" },
    });
  }
  return rails;
}
