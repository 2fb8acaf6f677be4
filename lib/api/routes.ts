import { approvePayout } from "./admin/approve-payout";
import { creditToken } from "./admin/credit-token";
import {
  listCatalogChangeLog,
  postCatalogRefresh,
  putCatalogModel,
  putCatalogPrice,
} from "./admin/edit-catalog";
import { getFundingSetup } from "./admin/get-funding-setup";
import { getHostTrust } from "./admin/get-host-trust";
import { getReconciliation } from "./admin/get-reconciliation";
import { resumeAutoTopUp } from "./admin/resume-auto-top-up";
import { setHostStatus } from "./admin/set-host-status";
import { slashHost } from "./admin/slash-host";
import { getAutoTopUp, setAutoTopUp, setUpAutoTopUpCard } from "./balance/auto-top-up";
import { getBalanceAlert, removeBalanceAlert, setBalanceAlert } from "./balance/balance-alert";
import { listUnmatched } from "./deposits/list-unmatched-deposits";
import { assignUnmatched, refundUnmatched } from "./deposits/resolve-deposit";
import { fundBase, getBaseDepositTypedData } from "./funding/fund-base";
import { fundCard, getCardSession, quoteCardFunding } from "./funding/fund-card";
import { getFundingOptions } from "./funding/get-funding-options";
import { listFundingHistory } from "./funding/list-funding-history";
import { addRelayKey } from "./hosts/add-relay-key";
import { deleteListing } from "./hosts/delete-listing";
import { enrollHost } from "./hosts/enroll-host";
import { getHostAgent } from "./hosts/get-host-agent";
import { getHostBalance } from "./hosts/get-host-balance";
import { getHostProfile } from "./hosts/get-host-profile";
import { listHostTransactions } from "./hosts/list-host-transactions";
import { listListings } from "./hosts/list-listings";
import { listRelayKeys } from "./hosts/list-relay-keys";
import { putListing } from "./hosts/put-listing";
import { retireHost } from "./hosts/retire-host";
import { revokeRelayKey } from "./hosts/revoke-relay-key";
import { withdrawEarnings } from "./hosts/withdraw-earnings";
import { countTokens } from "./inference/count-tokens";
import { handleEmbeddings } from "./inference/handle-embeddings";
import { handleImageEdits, handleImageGenerations } from "./inference/handle-images";
import { handleTokenInference } from "./inference/handle-token-inference";
import { listModels } from "./inference/list-models";
import { deleteResponse, getStoredResponse } from "./inference/stored-response";
import { createKey, revokeKey, rotateKey, updateKey } from "./keys/issue-key";
import { listKeys } from "./keys/list-keys";
import { listMarketplaceModels } from "./marketplace/list-marketplace-models";
import { listModelEndpoints } from "./marketplace/list-model-endpoints";
import { listProviders } from "./marketplace/list-providers";
import { getReceiptKeys } from "./receipts/get-receipt-keys";
import { defineRoute, type RouteDefinition } from "./route-definition";
import { getHealth } from "./system/get-health";
import { getMetrics } from "./system/get-metrics";
import { getBalance } from "./tokens/get-balance";
import { getReceipt } from "./tokens/get-receipt";
import { getUsageSummary } from "./tokens/get-usage-summary";
import { exportTransactions, listTransactions } from "./tokens/list-transactions";
import { openReceipt } from "./tokens/open-receipt";
import { registerToken } from "./tokens/register-token";
import { receiveStripeEvent } from "./webhooks/receive-stripe-event";
import { getWalletBalance } from "./x402/get-wallet-balance";
import { serveX402ImageEdits, serveX402ImageGenerations } from "./x402/serve-x402-images";
import { serveX402Inference } from "./x402/serve-x402-inference";

/**
 * An image edit uploads its images (OpenAI takes up to 16, up to 50 MB each for gpt-image-1,
 * 4 MB for dall-e-2): more than MAX_BODY_BYTES allows a JSON body, bounded all the same.
 */
const imageUploadLimit = 32 * 1024 * 1024;

/**
 * Every API route, defined once. server.ts matches requests against this table, and each
 * app/ route file is built from its entry, so both entry points run the same pipeline.
 * A literal segment wins over a `:param` (so `/proxy/x402/…` is never read as a token).
 * Adding a route: one entry here, one route file (see ARCHITECTURE.md).
 */
export const apiRoutes: readonly RouteDefinition[] = [
  defineRoute({
    method: "GET",
    path: "/health",
    auth: "none",
    dialect: "openai",
    bodyLimit: 0,
    handler: getHealth,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/receipts/keys",
    auth: "none",
    dialect: "openai",
    bodyLimit: 0,
    handler: getReceiptKeys,
  }),

  // Prepaid tokens
  defineRoute({
    method: "POST",
    path: "/v1/register",
    auth: "none",
    dialect: "openai",
    bodyLimit: "env",
    handler: registerToken,
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/:token/balance",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: getBalance,
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/:token/transactions",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: listTransactions,
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/:token/receipts/:id",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: getReceipt,
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/:token/transactions/export",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: exportTransactions,
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/:token/transactions/:id/receipt",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: openReceipt,
  }),

  defineRoute({
    method: "GET",
    path: "/proxy/:token/usage",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: getUsageSummary,
  }),

  // Further API keys of a token's account
  defineRoute({
    method: "GET",
    path: "/proxy/:token/keys",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: listKeys,
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/:token/keys",
    auth: "token",
    dialect: "openai",
    bodyLimit: 4096,
    handler: createKey,
  }),
  defineRoute({
    method: "PATCH",
    path: "/proxy/:token/keys/:id",
    auth: "token",
    dialect: "openai",
    bodyLimit: 4096,
    handler: updateKey,
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/:token/keys/:id/rotate",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: rotateKey,
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/:token/keys/:id/revoke",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: revokeKey,
  }),

  defineRoute({
    method: "GET",
    path: "/v1/admin/funding",
    auth: "admin",
    dialect: "openai",
    bodyLimit: 0,
    handler: getFundingSetup,
  }),

  // Low-balance alerts and auto top-up by card
  defineRoute({
    method: "GET",
    path: "/proxy/:token/balance-alert",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: getBalanceAlert,
  }),
  defineRoute({
    method: "PUT",
    path: "/proxy/:token/balance-alert",
    auth: "token",
    dialect: "openai",
    bodyLimit: 4096,
    handler: setBalanceAlert,
  }),
  defineRoute({
    method: "DELETE",
    path: "/proxy/:token/balance-alert",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: removeBalanceAlert,
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/:token/auto-top-up",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: getAutoTopUp,
  }),
  defineRoute({
    method: "PUT",
    path: "/proxy/:token/auto-top-up",
    auth: "token",
    dialect: "openai",
    bodyLimit: 4096,
    handler: setAutoTopUp,
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/:token/auto-top-up/card",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: setUpAutoTopUpCard,
  }),

  // Funding a prepaid token
  defineRoute({
    method: "GET",
    path: "/proxy/:token/funding",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: getFundingOptions,
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/:token/funding/history",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: listFundingHistory,
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/:token/fund/card",
    auth: "token",
    dialect: "openai",
    bodyLimit: "env",
    handler: fundCard,
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/:token/fund/card/quote",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: quoteCardFunding,
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/:token/fund/card/:session",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: getCardSession,
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/:token/fund/base/typed-data",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: getBaseDepositTypedData,
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/:token/fund/base",
    auth: "token",
    dialect: "openai",
    bodyLimit: "env",
    handler: fundBase,
  }),
  // Signed by Stripe: the handler checks the signature over the raw body.
  defineRoute({
    method: "POST",
    path: "/v1/webhooks/stripe",
    auth: "none",
    dialect: "openai",
    bodyLimit: "env",
    handler: receiveStripeEvent,
  }),

  // Inference on a prepaid token
  defineRoute({
    method: "POST",
    path: "/proxy/:token/v1/chat/completions",
    auth: "token",
    dialect: "openai",
    bodyLimit: "env",
    handler: (call) => handleTokenInference(call, "openai"),
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/:token/v1/messages",
    auth: "token",
    dialect: "anthropic",
    bodyLimit: "env",
    handler: (call) => handleTokenInference(call, "anthropic"),
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/:token/v1/messages/count_tokens",
    auth: "token",
    dialect: "anthropic",
    bodyLimit: "env",
    handler: countTokens,
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/:token/v1/responses",
    auth: "token",
    dialect: "openai",
    bodyLimit: "env",
    handler: (call) => handleTokenInference(call, "responses"),
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/:token/v1/responses/:id",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: getStoredResponse,
  }),
  defineRoute({
    method: "DELETE",
    path: "/proxy/:token/v1/responses/:id",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: deleteResponse,
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/:token/v1/embeddings",
    auth: "token",
    dialect: "openai",
    bodyLimit: "env",
    handler: handleEmbeddings,
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/:token/v1/images/generations",
    auth: "token",
    dialect: "openai",
    bodyLimit: "env",
    handler: handleImageGenerations,
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/:token/v1/images/edits",
    auth: "token",
    dialect: "openai",
    bodyLimit: imageUploadLimit,
    handler: handleImageEdits,
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/:token/v1/models",
    auth: "token",
    dialect: "openai",
    bodyLimit: 0,
    handler: listModels,
  }),

  // Inference paid per request with x402
  defineRoute({
    method: "POST",
    path: "/proxy/x402/v1/chat/completions",
    auth: "x402",
    dialect: "openai",
    bodyLimit: "env",
    handler: (call) => serveX402Inference(call, "openai"),
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/x402/v1/messages",
    auth: "x402",
    dialect: "anthropic",
    bodyLimit: "env",
    handler: (call) => serveX402Inference(call, "anthropic"),
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/x402/v1/images/generations",
    auth: "x402",
    dialect: "openai",
    bodyLimit: "env",
    handler: serveX402ImageGenerations,
  }),
  defineRoute({
    method: "POST",
    path: "/proxy/x402/v1/images/edits",
    auth: "x402",
    dialect: "openai",
    bodyLimit: imageUploadLimit,
    handler: serveX402ImageEdits,
  }),
  defineRoute({
    method: "GET",
    path: "/proxy/x402/balance/:wallet",
    auth: "none",
    dialect: "openai",
    bodyLimit: 0,
    handler: getWalletBalance,
  }),

  // Marketplace catalogue
  defineRoute({
    method: "GET",
    path: "/v1/models/:model/endpoints",
    auth: "none",
    dialect: "openai",
    bodyLimit: 0,
    handler: listModelEndpoints,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/marketplace/models",
    auth: "none",
    dialect: "openai",
    bodyLimit: 0,
    handler: listMarketplaceModels,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/providers",
    auth: "none",
    dialect: "openai",
    bodyLimit: 0,
    handler: listProviders,
  }),

  // Hosts
  defineRoute({
    method: "POST",
    path: "/v1/host/enroll",
    auth: "none",
    dialect: "openai",
    bodyLimit: "env",
    handler: enrollHost,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/host/profile",
    auth: "host",
    dialect: "openai",
    bodyLimit: 0,
    handler: getHostProfile,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/host/agent",
    auth: "host",
    dialect: "openai",
    bodyLimit: 0,
    handler: getHostAgent,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/host/relay-keys",
    auth: "host",
    dialect: "openai",
    bodyLimit: 0,
    handler: listRelayKeys,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/host/relay-keys",
    auth: "host",
    dialect: "openai",
    bodyLimit: "env",
    handler: addRelayKey,
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/host/relay-keys/:id",
    auth: "host",
    dialect: "openai",
    bodyLimit: 0,
    handler: revokeRelayKey,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/host/listings",
    auth: "host",
    dialect: "openai",
    bodyLimit: 0,
    handler: listListings,
  }),
  defineRoute({
    method: "PUT",
    path: "/v1/host/listings",
    auth: "host",
    dialect: "openai",
    bodyLimit: "env",
    handler: putListing,
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/host/listings/:model",
    auth: "host",
    dialect: "openai",
    bodyLimit: 0,
    handler: deleteListing,
  }),

  // Host earnings
  defineRoute({
    method: "GET",
    path: "/v1/host/balance",
    auth: "host",
    dialect: "openai",
    bodyLimit: 0,
    handler: getHostBalance,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/host/transactions",
    auth: "host",
    dialect: "openai",
    bodyLimit: 0,
    handler: listHostTransactions,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/host/withdraw",
    auth: "host",
    dialect: "openai",
    bodyLimit: "env",
    handler: withdrawEarnings,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/host/retire",
    auth: "host",
    dialect: "openai",
    bodyLimit: "env",
    handler: retireHost,
  }),

  // Operators
  defineRoute({
    method: "POST",
    path: "/v1/admin/payouts/:id/approve",
    auth: "admin",
    dialect: "openai",
    bodyLimit: 0,
    handler: approvePayout,
  }),
  // Prometheus text, not JSON.
  defineRoute({
    method: "GET",
    path: "/metrics",
    auth: "admin",
    dialect: "openai",
    bodyLimit: 0,
    handler: getMetrics,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/admin/reconcile",
    auth: "admin",
    dialect: "openai",
    bodyLimit: 0,
    handler: getReconciliation,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/admin/credits",
    auth: "admin",
    dialect: "openai",
    bodyLimit: "env",
    handler: creditToken,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/admin/auto-top-up/resume",
    auth: "admin",
    dialect: "openai",
    bodyLimit: "env",
    handler: resumeAutoTopUp,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/admin/hosts/:id/activate",
    auth: "admin",
    dialect: "openai",
    bodyLimit: 0,
    handler: setHostStatus("active"),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/admin/hosts/:id/suspend",
    auth: "admin",
    dialect: "openai",
    bodyLimit: 0,
    handler: setHostStatus("suspended"),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/admin/hosts/:id/slash",
    auth: "admin",
    dialect: "openai",
    bodyLimit: "env",
    handler: slashHost,
  }),
  // The model catalog: operator edits (recorded in the change log) and refreshes
  defineRoute({
    method: "PUT",
    path: "/v1/admin/catalog/models/:model",
    auth: "admin",
    dialect: "openai",
    bodyLimit: "env",
    handler: putCatalogModel,
  }),
  defineRoute({
    method: "PUT",
    path: "/v1/admin/catalog/models/:model/prices/:provider",
    auth: "admin",
    dialect: "openai",
    bodyLimit: "env",
    handler: putCatalogPrice,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/admin/catalog/changes",
    auth: "admin",
    dialect: "openai",
    bodyLimit: 0,
    handler: listCatalogChangeLog,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/admin/catalog/refresh",
    auth: "admin",
    dialect: "openai",
    bodyLimit: 0,
    handler: postCatalogRefresh,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/admin/hosts/:id/trust",
    auth: "admin",
    dialect: "openai",
    bodyLimit: 0,
    handler: getHostTrust,
  }),
  // On-chain deposits the watcher could not bind to a token or a bond
  defineRoute({
    method: "GET",
    path: "/v1/admin/deposits/unmatched",
    auth: "admin",
    dialect: "openai",
    bodyLimit: 0,
    handler: listUnmatched,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/admin/deposits/:signature/assign",
    auth: "admin",
    dialect: "openai",
    bodyLimit: "env",
    handler: assignUnmatched,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/admin/deposits/:signature/refund",
    auth: "admin",
    dialect: "openai",
    bodyLimit: "env",
    handler: refundUnmatched,
  }),
];
