import type { AppContext } from "../app-context";
import { GatewayError } from "../errors/gateway-error";
import { handleAdminCredit } from "../handlers/admin-credits";
import { handleBalance } from "../handlers/balance";
import { handleCountTokens } from "../handlers/count-tokens";
import { handleCardQuote, handleCardSessionStatus, handleFundCard } from "../handlers/fund-card";
import { handleFundingHistory } from "../handlers/funding-history";
import { handleFundingOptions } from "../handlers/funding-options";
import { handleHealth } from "../handlers/health";
import {
  handleApprovePayout,
  handleHostBalance,
  handleHostRetire,
  handleHostTransactions,
  handleHostWithdraw,
} from "../handlers/host-earnings";
import { handleHostEnroll } from "../handlers/host-enroll";
import { handleDeleteListing, handleListListings, handlePutListing } from "../handlers/host-listings";
import { handleHostProfile } from "../handlers/host-profile";
import { handleAddRelayKey, handleListRelayKeys, handleRevokeRelayKey } from "../handlers/host-relay-keys";
import { handleHostStatusChange } from "../handlers/host-status";
import { handleMarketplaceModels } from "../handlers/marketplace-models";
import { handleModels } from "../handlers/models";
import { handleProviders } from "../handlers/providers";
import { handleRegister } from "../handlers/register";
import { handleStripeWebhook } from "../handlers/stripe-webhook";
import { handleTransactions } from "../handlers/transactions";
import { handleUsageSummary } from "../handlers/usage-summary";
import { handleX402Inference } from "../handlers/x402-inference";
import { handleX402WalletBalance } from "../handlers/x402-wallet-balance";
import { handleMetrics } from "../metrics/handle-metrics";
import { handleTokenInference } from "../proxy/handle-token-inference";
import { preflightResponse, withCors } from "./cors";
import { errorResponse } from "./responses";

export type ApiHandler = (app: AppContext, request: Request, params: string[]) => Promise<Response>;

interface ApiRoute {
  method: string;
  pattern: RegExp;
  handler: ApiHandler;
}

const token = "([^/]+)";
const segment = "([^/]+)";

/**
 * The API surface served by server.ts. Each handler is the same function the matching
 * app/ route file calls, so both entry points answer identically.
 */
export const apiRoutes: ApiRoute[] = [
  { method: "POST", pattern: /^\/v1\/register\/?$/, handler: (app, request) => handleRegister(app, request) },
  {
    method: "POST",
    pattern: /^\/v1\/admin\/credits\/?$/,
    handler: (app, request) => handleAdminCredit(app, request),
  },
  { method: "GET", pattern: /^\/health\/?$/, handler: (app) => handleHealth(app) },
  { method: "GET", pattern: /^\/metrics\/?$/, handler: (app, request) => handleMetrics(app, request) },
  // x402 before the token routes: their pattern would otherwise take "x402" for a token.
  {
    method: "POST",
    pattern: /^\/proxy\/x402\/v1\/chat\/completions\/?$/,
    handler: (app, request) => handleX402Inference(app, request, "openai"),
  },
  {
    method: "POST",
    pattern: /^\/proxy\/x402\/v1\/messages\/?$/,
    handler: (app, request) => handleX402Inference(app, request, "anthropic"),
  },
  {
    method: "GET",
    pattern: /^\/proxy\/x402\/balance\/([^/]+)\/?$/,
    handler: (app, request, [wallet = ""]) => handleX402WalletBalance(app, request, wallet),
  },
  {
    method: "POST",
    pattern: new RegExp(`^/proxy/${token}/v1/chat/completions/?$`),
    handler: (app, request, [value = ""]) => handleTokenInference(app, request, value, "openai"),
  },
  {
    method: "POST",
    pattern: new RegExp(`^/proxy/${token}/v1/messages/?$`),
    handler: (app, request, [value = ""]) => handleTokenInference(app, request, value, "anthropic"),
  },
  {
    method: "POST",
    pattern: new RegExp(`^/proxy/${token}/v1/messages/count_tokens/?$`),
    handler: (app, request, [value = ""]) => handleCountTokens(app, request, value),
  },
  {
    method: "POST",
    pattern: new RegExp(`^/proxy/${token}/v1/responses/?$`),
    handler: (app, request, [value = ""]) => handleTokenInference(app, request, value, "responses"),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/proxy/${token}/v1/models/?$`),
    handler: (app, request, [value = ""]) => handleModels(app, request, value),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/proxy/${token}/balance/?$`),
    handler: (app, request, [value = ""]) => handleBalance(app, request, value),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/proxy/${token}/transactions/?$`),
    handler: (app, request, [value = ""]) => handleTransactions(app, request, value),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/proxy/${token}/funding/?$`),
    handler: (app, request, [value = ""]) => handleFundingOptions(app, request, value),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/proxy/${token}/funding/history/?$`),
    handler: (app, request, [value = ""]) => handleFundingHistory(app, request, value),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/proxy/${token}/usage/?$`),
    handler: (app, request, [value = ""]) => handleUsageSummary(app, request, value),
  },
  {
    method: "POST",
    pattern: new RegExp(`^/proxy/${token}/fund/card/?$`),
    handler: (app, request, [value = ""]) => handleFundCard(app, request, value),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/proxy/${token}/fund/card/quote/?$`),
    handler: (app, request, [value = ""]) => handleCardQuote(app, request, value),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/proxy/${token}/fund/card/${segment}/?$`),
    handler: (app, request, [value = "", session = ""]) =>
      handleCardSessionStatus(app, request, value, session),
  },
  {
    method: "POST",
    pattern: /^\/v1\/webhooks\/stripe\/?$/,
    handler: (app, request) => handleStripeWebhook(app, request),
  },
  {
    method: "GET",
    pattern: /^\/v1\/marketplace\/models\/?$/,
    handler: (app) => handleMarketplaceModels(app),
  },
  { method: "GET", pattern: /^\/v1\/providers\/?$/, handler: (app) => handleProviders(app) },
  {
    method: "POST",
    pattern: /^\/v1\/host\/enroll\/?$/,
    handler: (app, request) => handleHostEnroll(app, request),
  },
  {
    method: "GET",
    pattern: /^\/v1\/host\/balance\/?$/,
    handler: (app, request) => handleHostBalance(app, request),
  },
  {
    method: "GET",
    pattern: /^\/v1\/host\/transactions\/?$/,
    handler: (app, request) => handleHostTransactions(app, request),
  },
  {
    method: "POST",
    pattern: /^\/v1\/host\/withdraw\/?$/,
    handler: (app, request) => handleHostWithdraw(app, request),
  },
  {
    method: "POST",
    pattern: /^\/v1\/host\/retire\/?$/,
    handler: (app, request) => handleHostRetire(app, request),
  },
  {
    method: "POST",
    pattern: /^\/v1\/admin\/payouts\/([^/]+)\/approve\/?$/,
    handler: (app, request, [id = ""]) => handleApprovePayout(app, request, id),
  },
  {
    method: "GET",
    pattern: /^\/v1\/host\/profile\/?$/,
    handler: (app, request) => handleHostProfile(app, request),
  },
  {
    method: "GET",
    pattern: /^\/v1\/host\/relay-keys\/?$/,
    handler: (app, request) => handleListRelayKeys(app, request),
  },
  {
    method: "POST",
    pattern: /^\/v1\/host\/relay-keys\/?$/,
    handler: (app, request) => handleAddRelayKey(app, request),
  },
  {
    method: "DELETE",
    pattern: new RegExp(`^/v1/host/relay-keys/${segment}/?$`),
    handler: (app, request, [id = ""]) => handleRevokeRelayKey(app, request, id),
  },
  {
    method: "GET",
    pattern: /^\/v1\/host\/listings\/?$/,
    handler: (app, request) => handleListListings(app, request),
  },
  {
    method: "PUT",
    pattern: /^\/v1\/host\/listings\/?$/,
    handler: (app, request) => handlePutListing(app, request),
  },
  {
    method: "DELETE",
    pattern: new RegExp(`^/v1/host/listings/${segment}/?$`),
    handler: (app, request, [model = ""]) => handleDeleteListing(app, request, model),
  },
  {
    method: "POST",
    pattern: new RegExp(`^/v1/admin/hosts/${segment}/activate/?$`),
    handler: (app, request, [id = ""]) => handleHostStatusChange(app, request, id, "active"),
  },
  {
    method: "POST",
    pattern: new RegExp(`^/v1/admin/hosts/${segment}/suspend/?$`),
    handler: (app, request, [id = ""]) => handleHostStatusChange(app, request, id, "suspended"),
  },
];

/** Paths that belong to the API even when no route matches (a 404/405 in JSON, never a Next page). */
export function isApiPath(pathname: string): boolean {
  return pathname.startsWith("/v1/") || pathname.startsWith("/proxy/") || pathname === "/health";
}

export function matchApiRoute(
  method: string,
  pathname: string,
): { handler: ApiHandler; params: string[] } | "method_not_allowed" | undefined {
  let pathMatched = false;
  for (const route of apiRoutes) {
    const match = route.pattern.exec(pathname);
    if (!match) continue;
    pathMatched = true;
    if (route.method === method)
      return { handler: route.handler, params: match.slice(1).map((part) => decodeURIComponent(part)) };
  }
  return pathMatched ? "method_not_allowed" : undefined;
}

/** Dispatches an API request; unknown paths answer in JSON in the dialect the path implies. */
export async function routeApiRequest(app: AppContext, request: Request): Promise<Response> {
  if (request.method === "OPTIONS") return preflightResponse(request);
  return withCors(await dispatchApiRequest(app, request));
}

async function dispatchApiRequest(app: AppContext, request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const match = matchApiRoute(request.method, pathname);
  const dialect = pathname.endsWith("/messages") ? "anthropic" : "openai";
  if (match === "method_not_allowed") {
    return errorResponse(
      dialect,
      new GatewayError(
        "method_not_allowed",
        `method ${request.method} not allowed on ${pathname.replace(/\/proxy\/[^/]+/, "/proxy/<token>")}`,
      ),
    );
  }
  if (!match) return errorResponse(dialect, new GatewayError("not_found", "not found: no such endpoint"));
  return match.handler(app, request, match.params);
}
