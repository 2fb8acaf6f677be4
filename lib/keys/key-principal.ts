import type { KeyScope } from "@pod-gateway/contracts/account-keys";
import type { LimitPeriod } from "./limit-period";

export interface KeyLimit {
  microunits: bigint;
  period: LimitPeriod;
}

/** A further API key as a request made with it is authenticated: the account is its token's. */
export interface KeyPrincipal {
  id: string;
  label: string;
  limit: KeyLimit | undefined;
  /** Always includes `inference`; `read` and `manage` only when chosen at creation. */
  scopes: readonly KeyScope[];
  /** Every repeatable request made with the key asks the response cache. */
  responseCache: boolean;
}
