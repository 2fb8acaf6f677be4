import type { KeyScope } from "@pod-gateway/contracts/account-keys";
import { GatewayError } from "../errors/gateway-error";
import type { TokenRecord } from "./find-token";

const scopeOrder: readonly KeyScope[] = ["inference", "read", "manage"];

/** A key's scopes as stored and shown: `inference` always, each scope once, in one order. */
export function normalizeScopes(scopes: readonly string[] | undefined): KeyScope[] {
  const wanted = new Set(["inference", ...(scopes ?? [])]);
  return scopeOrder.filter((scope) => wanted.has(scope));
}

/** The token may do everything; a key what its scopes say. */
export function hasScope(principal: TokenRecord, scope: KeyScope): boolean {
  return principal.key === undefined || principal.key.scopes.includes(scope);
}

const purposes: Record<Exclude<KeyScope, "inference">, string> = {
  read: "read the account's activity beyond its own requests",
  manage: "manage the account's keys, balance alert and auto top-up",
};

/** A 403 naming the scope a key lacks; the token always passes. */
export function requireScope(principal: TokenRecord, scope: Exclude<KeyScope, "inference">): void {
  if (hasScope(principal, scope)) return;
  throw new GatewayError(
    "forbidden",
    `forbidden: this API key may not ${purposes[scope]}; use the account's token, or a key created with the "${scope}" scope`,
    { details: { required_scope: scope } },
  );
}

/** What the request may see of the account's activity: every row, or its own key's only. */
export function activityKeyFilter(principal: TokenRecord): string | undefined {
  return principal.key !== undefined && !hasScope(principal, "read") ? principal.key.id : undefined;
}
