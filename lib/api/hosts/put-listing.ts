import { z } from "zod";
import { resolveModelOrThrow } from "../../catalog/unknown-model";
import { GatewayError } from "../../errors/gateway-error";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { isUuid } from "../../ids";
import { findActiveRelayKey } from "../../relays/relay-keys";
import { upsertListing } from "../../relays/relay-listings";
import { parseUsdcAmount } from "../../relays/usdc-amount";
import type { ApiCall } from "../route-definition";
import { listingViews } from "./listing-view";

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

/**
 * PUT /v1/host/listings – create or replace the host's listing for one model. A listing
 * above the cheapest centralized price is stored but never routed (`within_cap: false`).
 */
export async function putListing({ app, request, principal: host, bodyLimit }: ApiCall<"host">) {
  const body = await readValidatedJson(request, listingSchema, bodyLimit);
  const model = await resolveModelOrThrow(app, body.model);
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
}
