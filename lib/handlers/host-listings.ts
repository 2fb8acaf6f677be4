import { z } from "zod";
import type { AppContext } from "../app-context";
import type { CatalogModel } from "../catalog/models";
import { GatewayError } from "../errors/gateway-error";
import { authenticateHost } from "../hosts/authenticate-host";
import { errorResponse, jsonResponse } from "../http/responses";
import { isUuid } from "../ids";
import { relayEarningsLastDay } from "../relays/daily-earnings";
import { findActiveRelayKey } from "../relays/relay-keys";
import { deleteListing, type ListingView, listListings, upsertListing } from "../relays/relay-listings";
import { formatUsdc, parseUsdcAmount } from "../relays/usdc-amount";
import { centralizedCap, isWithinCap } from "../routing/price-cap";
import { resolveModel } from "../routing/resolve-model";
import { readHostBody } from "./host-request-body";

/** Microunits per 1M tokens: an integer, as a JSON number or a digit string. At most $1M per 1M tokens. */
const price = z
  .union([z.number().int().min(0), z.string().regex(/^\d{1,13}$/)])
  .transform((value) => BigInt(value))
  .refine((value) => value <= 1_000_000_000_000n, "must be at most 1000000000000");

const listingSchema = z.object({
  model: z.string().trim().min(1).max(200),
  relay_key_id: z.string().refine(isUuid, "must be a relay key id"),
  upstream_model_id: z.string().trim().min(1).max(200).optional(),
  input_per_1m: price,
  output_per_1m: price,
  enabled: z.boolean().default(true),
  daily_cap_usdc: z.union([z.number(), z.string(), z.null()]).optional(),
});

function modelOrThrow(app: AppContext, modelId: string): CatalogModel {
  const model = resolveModel(app.catalog, modelId);
  if (!model) throw new GatewayError("model_not_found", `model not found: ${modelId}`, { param: "model" });
  return model;
}

function listingView(app: AppContext, listing: ListingView, earned: bigint) {
  const model = app.catalog.models.find((item) => item.id === listing.modelId);
  const cap = model ? centralizedCap(app.catalog.pricesFor(model)) : undefined;
  const withinCap = isWithinCap(listing, cap);
  const capReached = listing.dailyCapMicrounits !== null && earned >= listing.dailyCapMicrounits;
  return {
    model: listing.modelId,
    relay_key_id: listing.relayKeyId,
    upstream: listing.upstream,
    upstream_model_id: listing.upstreamModelId,
    input_per_1m: Number(listing.inputPer1m),
    output_per_1m: Number(listing.outputPer1m),
    enabled: listing.enabled,
    daily_cap_usdc: listing.dailyCapMicrounits === null ? null : formatUsdc(listing.dailyCapMicrounits),
    earned_last_24h_microunits: Number(earned),
    centralized_cap: cap
      ? { input_per_1m: Number(cap.inputPer1m), output_per_1m: Number(cap.outputPer1m) }
      : null,
    within_cap: withinCap,
    /** Why routing skips it right now, if it does (a pending host is reported by /v1/host/profile). */
    excluded_reason: !listing.enabled
      ? "disabled"
      : !withinCap
        ? "above_centralized_cap"
        : capReached
          ? "daily_cap_reached"
          : null,
    updated_at: listing.updatedAt.toISOString(),
  };
}

async function listingViews(app: AppContext, hostId: string) {
  const listings = await listListings(app.database.db, hostId);
  const views = [];
  for (const listing of listings) {
    const earned = (await relayEarningsLastDay(app.database.db, [hostId], listing.modelId)).get(hostId) ?? 0n;
    views.push(listingView(app, listing, earned));
  }
  return views;
}

/** GET /v1/host/listings – the host's relay listings with their cap and daily-cap state. */
export async function handleListListings(app: AppContext, request: Request): Promise<Response> {
  try {
    const host = await authenticateHost(app.database.db, request);
    return jsonResponse({ listings: await listingViews(app, host.id) }, 200, { "cache-control": "no-store" });
  } catch (error) {
    return errorResponse("openai", error);
  }
}

/**
 * PUT /v1/host/listings – create or replace the host's listing for one model. A listing
 * above the cheapest centralized price is stored but never routed (`within_cap: false`).
 */
export async function handlePutListing(app: AppContext, request: Request): Promise<Response> {
  try {
    const host = await authenticateHost(app.database.db, request);
    const body = await readHostBody(request, listingSchema, app.env.MAX_BODY_BYTES);
    const model = modelOrThrow(app, body.model);
    const key = await findActiveRelayKey(app.database.db, host.id, body.relay_key_id.toLowerCase());
    if (!key)
      throw new GatewayError("not_found", "relay key not found (or revoked)", { param: "relay_key_id" });
    const catalogId = app.catalog
      .pricesFor(model)
      .find((item) => item.provider === key.upstream)?.upstreamModelId;
    const capValue = body.daily_cap_usdc;
    const dailyCap =
      capValue === undefined || capValue === null ? null : parseUsdcAmount(capValue, "daily_cap_usdc");
    if (dailyCap === 0n)
      throw new GatewayError(
        "bad_request",
        "bad request: daily_cap_usdc must be positive (or null for no cap)",
      );
    await upsertListing(app.database.db, {
      hostId: host.id,
      modelId: model.id,
      relayKeyId: key.id,
      upstreamModelId: body.upstream_model_id ?? catalogId ?? model.id,
      inputPer1m: body.input_per_1m,
      outputPer1m: body.output_per_1m,
      enabled: body.enabled,
      dailyCapMicrounits: dailyCap,
    });
    const listing = (await listingViews(app, host.id)).find((item) => item.model === model.id);
    return jsonResponse(listing ?? {}, 200, { "cache-control": "no-store" });
  } catch (error) {
    return errorResponse("openai", error);
  }
}

/** DELETE /v1/host/listings/<model> – remove the host's listing for a model. */
export async function handleDeleteListing(
  app: AppContext,
  request: Request,
  modelId: string,
): Promise<Response> {
  try {
    const host = await authenticateHost(app.database.db, request);
    const model = modelOrThrow(app, modelId);
    if (!(await deleteListing(app.database.db, host.id, model.id)))
      throw new GatewayError("not_found", "listing not found");
    return jsonResponse({ model: model.id, deleted: true });
  } catch (error) {
    return errorResponse("openai", error);
  }
}
