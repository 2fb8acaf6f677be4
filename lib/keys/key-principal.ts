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
}
