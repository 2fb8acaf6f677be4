import { hostname } from "node:os";
import type { Env } from "../env";
import { InMemoryMarketplaceRegistry } from "../marketplace/in-memory-registry";
import type { MarketplaceRegistry } from "../marketplace/registry";
import { SharedMarketplaceRegistry } from "../marketplace/shared-registry";
import { ReputationBook } from "../trust/reputation";
import { HealthTracker } from "./health-tracker";

/** Routing state (`AppContext.routing`): marketplace supply, provider health and host reputation. */
export interface RoutingState {
  registry: MarketplaceRegistry;
  health: HealthTracker;
  /** Each host's standing from its trust record: demoted hosts go last, excluded ones are not routed. */
  reputation: ReputationBook;
}

/**
 * Without REDIS_URL the marketplace and provider health belong to this process. With it, they
 * are shared by every replica through Redis (lib/marketplace/shared-registry.ts); `instanceId`
 * is this process's address there.
 */
export function createRoutingState(env: Env, instanceId: string): RoutingState {
  const health = new HealthTracker();
  if (!env.REDIS_URL) {
    return {
      registry: new InMemoryMarketplaceRegistry({ heartbeatTimeoutMs: env.PROVIDER_HEARTBEAT_TIMEOUT_MS }),
      health,
      reputation: new ReputationBook(),
    };
  }
  const registry = new SharedMarketplaceRegistry({
    redisUrl: env.REDIS_URL,
    namespace: env.REDIS_NAMESPACE,
    replicaId: instanceId,
    replicaName: replicaName(env),
    heartbeatTimeoutMs: env.PROVIDER_HEARTBEAT_TIMEOUT_MS,
    replicaTimeoutMs: env.REPLICA_TIMEOUT_MS,
  });
  health.share(registry.shareHealth(health));
  registry.start();
  return { registry, health, reputation: new ReputationBook() };
}

/** REPLICA_ID, or the host name and process id: unique per process on one machine and readable. */
export function replicaName(env: Env): string {
  return env.REPLICA_ID ?? `${hostname()}:${process.pid}`;
}
