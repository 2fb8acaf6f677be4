import type { Env } from "../env";
import { InMemoryMarketplaceRegistry } from "../marketplace/in-memory-registry";
import type { MarketplaceRegistry } from "../marketplace/registry";
import { HealthTracker } from "./health-tracker";

/** Per-process routing state (`AppContext.routing`): marketplace supply and provider health. */
export interface RoutingState {
  registry: MarketplaceRegistry;
  health: HealthTracker;
}

export function createRoutingState(env: Env): RoutingState {
  return {
    registry: new InMemoryMarketplaceRegistry({ heartbeatTimeoutMs: env.PROVIDER_HEARTBEAT_TIMEOUT_MS }),
    health: new HealthTracker(),
  };
}
