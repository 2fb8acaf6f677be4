import type { AppContext } from "../app-context";
import { InMemoryMarketplaceRegistry } from "../marketplace/in-memory-registry";
import type { MarketplaceRegistry } from "../marketplace/registry";
import { HealthTracker } from "./health-tracker";

/** Per-process routing state: marketplace supply and provider health. */
export interface RoutingState {
  registry: MarketplaceRegistry;
  health: HealthTracker;
}

/**
 * Kept beside the app context rather than inside it, so routing owns its state and the
 * provider agent work can install the WebSocket-backed registry with `configureRouting`.
 */
const states = new WeakMap<AppContext, RoutingState>();

export function routingStateOf(app: AppContext): RoutingState {
  let state = states.get(app);
  if (!state) {
    state = {
      registry: new InMemoryMarketplaceRegistry({
        heartbeatTimeoutMs: app.env.PROVIDER_HEARTBEAT_TIMEOUT_MS,
      }),
      health: new HealthTracker(),
    };
    states.set(app, state);
  }
  return state;
}

/** Replaces parts of an app's routing state (the agent registry at start, doubles in tests). */
export function configureRouting(app: AppContext, changes: Partial<RoutingState>): RoutingState {
  const state = { ...routingStateOf(app), ...changes };
  states.set(app, state);
  return state;
}
