import type { Dialect } from "../dialects/dialect";
import { type CentralizedUpstreamName, centralizedUpstreamNames, type Env, upstreamConfigs } from "../env";
import { centralizedProviderSpecs } from "../providers/centralized-providers";

/** Upstreams a relay key may belong to: the centralized upstream kinds the gateway can call. */
export const relayUpstreamKinds: readonly CentralizedUpstreamName[] = centralizedUpstreamNames;

export function isRelayUpstreamKind(value: string): value is CentralizedUpstreamName {
  return (relayUpstreamKinds as readonly string[]).includes(value);
}

export interface RelayUpstreamTarget {
  dialect: Dialect;
  baseUrl: string;
}

/**
 * Where a relay key of this kind is sent: the vendor's API, or the deployment's `<NAME>_BASE_URL`
 * when set. Operators cannot choose a URL, so a listing can never point the gateway at an
 * arbitrary (internal) address.
 */
export function relayUpstreamTarget(env: Env, kind: CentralizedUpstreamName): RelayUpstreamTarget {
  const spec = centralizedProviderSpecs[kind];
  const configured = upstreamConfigs(env).find((config) => config.name === kind)?.baseUrl;
  return { dialect: spec.dialect, baseUrl: (configured ?? spec.defaultBaseUrl).replace(/\/+$/, "") };
}
