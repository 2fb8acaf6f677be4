import type { CentralizedUpstreamName, Env } from "../env";
import { upstreamConfigs } from "../env";
import { centralizedProviderSpecs, type WireDialect } from "./centralized-providers";

/** A centralized upstream that is configured (has a key) and can be dispatched to. */
export interface CentralizedUpstream {
  name: CentralizedUpstreamName;
  dialect: WireDialect;
  baseUrl: string;
  apiKey: string;
}

/** Upstreams are enabled by their API key; the base URL defaults to the vendor's own. */
export function configuredUpstreams(env: Env): Map<CentralizedUpstreamName, CentralizedUpstream> {
  const enabled = new Map<CentralizedUpstreamName, CentralizedUpstream>();
  for (const config of upstreamConfigs(env)) {
    if (!config.apiKey) continue;
    const spec = centralizedProviderSpecs[config.name];
    enabled.set(config.name, {
      name: config.name,
      dialect: spec.dialect,
      baseUrl: (config.baseUrl ?? spec.defaultBaseUrl).replace(/\/+$/, ""),
      apiKey: config.apiKey,
    });
  }
  return enabled;
}
