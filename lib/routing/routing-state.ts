import { hostname } from "node:os";
import type { CatalogIndex } from "../catalog/catalog-index";
import type { CentralizedUpstreamName, Env } from "../env";
import { InMemoryMarketplaceRegistry } from "../marketplace/in-memory-registry";
import type { MarketplaceRegistry } from "../marketplace/registry";
import { SharedMarketplaceRegistry } from "../marketplace/shared-registry";
import type { CentralizedUpstream } from "../providers/centralized-upstreams";
import { ReputationBook } from "../providers/host-standing";
import type { Services } from "../services";
import { HealthTracker } from "./health-tracker";
import { SourcePerformance } from "./source-performance";

/** Per-process routing state: marketplace supply, provider health and host reputation. */
export interface RoutingState {
  registry: MarketplaceRegistry;
  health: HealthTracker;
  /** Measured speed and reliability per (source, model), shared like health. */
  performance: SourcePerformance;
  /** Each host's standing from its trust record: demoted hosts go last, excluded ones are not routed. */
  reputation: ReputationBook;
}

/** What routing reads: the catalog's prices, the configured upstreams and the routing state. */
export interface RoutingServices extends Services {
  routing: RoutingState;
  /** The in-memory catalog index; the composition root replaces it whenever the catalog changes. */
  catalog: CatalogIndex;
  upstreams: ReadonlyMap<CentralizedUpstreamName, CentralizedUpstream>;
}

/**
 * Without REDIS_URL the marketplace, provider health and measured performance belong to this process. With it, they
 * are shared by every replica through Redis (lib/marketplace/shared-registry.ts); `instanceId`
 * is this process's address there. The composition root calls this once; a test may swap the
 * registry for a double.
 */
export function createRoutingState(env: Env, instanceId: string): RoutingState {
  const health = new HealthTracker();
  const performance = new SourcePerformance();
  if (!env.REDIS_URL) {
    return {
      registry: new InMemoryMarketplaceRegistry({ heartbeatTimeoutMs: env.PROVIDER_HEARTBEAT_TIMEOUT_MS }),
      health,
      performance,
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
  performance.share(registry.sharePerformance(performance));
  registry.start();
  return { registry, health, performance, reputation: new ReputationBook() };
}

/** REPLICA_ID, or the host name and process id: unique per process on one machine and readable. */
export function replicaName(env: Env): string {
  return env.REPLICA_ID ?? `${hostname()}:${process.pid}`;
}
