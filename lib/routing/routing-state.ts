import type { Env } from "../env";
import { InMemoryMarketplaceRegistry } from "../marketplace/in-memory-registry";
import type { MarketplaceRegistry } from "../marketplace/registry";
import { ReputationBook } from "../trust/reputation";
import { HealthTracker } from "./health-tracker";

/** Per-process routing state (`AppContext.routing`): marketplace supply, provider health and host reputation. */
export interface RoutingState {
  registry: MarketplaceRegistry;
  health: HealthTracker;
  /** Each host's standing from its trust record: demoted hosts go last, excluded ones are not routed. */
  reputation: ReputationBook;
}

export function createRoutingState(env: Env): RoutingState {
  return {
    registry: new InMemoryMarketplaceRegistry({ heartbeatTimeoutMs: env.PROVIDER_HEARTBEAT_TIMEOUT_MS }),
    health: new HealthTracker(),
    reputation: new ReputationBook(),
  };
}
