import { z } from "zod";
import { maxPricePer1m } from "../../catalog/catalog-entry";
import { modelKinds } from "../../catalog/models";
import { editModel, listCatalogChanges, setModelPrice } from "../../catalog/operator-edits";
import { refreshCatalog } from "../../catalog/refresh-catalog";
import { centralizedUpstreamNames } from "../../env";
import { badRequest } from "../../errors/gateway-error";
import { camelKeys } from "../../http/camel-keys";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { operatorOf, recordOperatorAction } from "../../operator-log/operator-actions";
import type { ApiCall } from "../route-definition";

const tokens = z.number().int().min(0).max(100_000_000);
const names = z.array(z.string().min(1).max(200)).max(50);
const microunits = z
  .union([z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), z.string().regex(/^(0|[1-9][0-9]{0,12})$/)])
  .transform((value) => BigInt(value))
  .refine((value) => value <= maxPricePer1m, "price too large");
/** Who made the change, as the log records it (the admin token itself names no one). */
const actorName = z.string().min(1).max(100).optional();

const modelSchema = z.strictObject({
  owned_by: z.string().min(1).max(100).optional(),
  name: z.string().min(1).max(200).optional(),
  kind: z.enum(modelKinds).optional(),
  context_window: tokens.optional(),
  max_output_tokens: tokens.optional(),
  aliases: names.optional(),
  input_modalities: z
    .array(z.enum(["text", "image", "audio", "video", "pdf"]))
    .max(5)
    .optional(),
  supports_tools: z.boolean().optional(),
  supports_reasoning: z.boolean().optional(),
  supports_structured_output: z.boolean().optional(),
  disabled: z.boolean().optional(),
  actor: actorName,
});

/** Per token (`input_per_1m` and `output_per_1m`), or per request (`request_price_microunits` alone). */
const priceSchema = z
  .strictObject({
    upstream_model_id: z.string().min(1).max(200).optional(),
    input_per_1m: microunits.optional(),
    output_per_1m: microunits.optional(),
    cache_read_per_1m: microunits.optional(),
    cache_write_per_1m: microunits.optional(),
    request_price_microunits: microunits.optional(),
    actor: actorName,
  })
  .transform((price, context) => {
    const { input_per_1m, output_per_1m, request_price_microunits, ...rest } = price;
    if (request_price_microunits !== undefined) {
      if (input_per_1m || output_per_1m || rest.cache_read_per_1m || rest.cache_write_per_1m)
        context.addIssue({ code: "custom", message: "a per-request price has no token rates" });
      return { ...rest, input_per_1m: 0n, output_per_1m: 0n, request_price: request_price_microunits };
    }
    if (input_per_1m === undefined || output_per_1m === undefined) {
      context.addIssue({ code: "custom", message: "input_per_1m and output_per_1m are required" });
      return z.NEVER;
    }
    return { ...rest, input_per_1m, output_per_1m };
  });

/** The change log's actor for an operator's edit: the body's `actor`, else the caller's operator name. */
const operator = (actor: string | undefined, call: ApiCall<"admin">) =>
  `operator:${actor ?? operatorOf(call.request)}`;

const modelIdPattern = /^[a-zA-Z0-9][a-zA-Z0-9._:@-]{0,199}$/;

function modelParam(call: ApiCall<"admin">): string {
  const id = call.params.model ?? "";
  if (!modelIdPattern.test(id)) throw badRequest("invalid model id", { param: "model" });
  return id;
}

/** PUT /v1/admin/catalog/models/:model – add a model, or override, disable or enable one. */
export async function putCatalogModel(call: ApiCall<"admin">): Promise<Response> {
  const { app } = call;
  const modelId = modelParam(call);
  const { actor, ...edit } = camelKeys(await readValidatedJson(call.request, modelSchema, call.bodyLimit));
  const { created } = await editModel(app.database.db, modelId, edit, operator(actor, call));
  await app.catalogStore.changed();
  return jsonResponse({ model: modelId, created }, created ? 201 : 200);
}

/** PUT /v1/admin/catalog/models/:model/prices/:provider – set (and pin) a provider's price. */
export async function putCatalogPrice(call: ApiCall<"admin">): Promise<Response> {
  const { app } = call;
  const modelId = modelParam(call);
  const provider = centralizedUpstreamNames.find((name) => name === call.params.provider);
  if (!provider) {
    throw badRequest(`provider must be one of ${centralizedUpstreamNames.join(", ")}`, { param: "provider" });
  }
  const { actor, ...edit } = camelKeys(await readValidatedJson(call.request, priceSchema, call.bodyLimit));
  await setModelPrice(app.database.db, modelId, provider, edit, operator(actor, call));
  await app.catalogStore.changed();
  return jsonResponse({ model: modelId, provider, pinned: true });
}

/** GET /v1/admin/catalog/changes?model=&before=&limit= – the change log, newest first. */
export async function listCatalogChangeLog({ app, request }: ApiCall<"admin">): Promise<Response> {
  const query = new URL(request.url).searchParams;
  const limit = Math.min(Math.max(Number(query.get("limit") ?? 100) || 100, 1), 500);
  const before = query.get("before");
  if (before !== null && !/^[1-9][0-9]{0,17}$/.test(before)) throw badRequest("before must be a change id");
  const rows = await listCatalogChanges(app.database.db, {
    modelId: query.get("model") ?? undefined,
    before: before === null ? undefined : BigInt(before),
    limit,
  });
  return jsonResponse({
    changes: rows.map((row) => ({
      id: Number(row.id),
      at: row.at.toISOString(),
      actor: row.actor,
      model: row.modelId,
      provider: row.provider,
      action: row.action,
      before: row.before,
      after: row.after,
    })),
  });
}

/** POST /v1/admin/catalog/refresh – refresh prices and models from the sources now. */
export async function postCatalogRefresh({ app, request }: ApiCall<"admin">): Promise<Response> {
  const report = await refreshCatalog(app, "operator-refresh");
  await recordOperatorAction(app.database.db, {
    operator: operatorOf(request),
    action: "catalog_refresh",
    subject: "catalog",
    detail: { prices_changed: report.pricesChanged, models_added: report.modelsAdded },
  });
  return jsonResponse({
    models_added: report.modelsAdded,
    prices_added: report.pricesAdded,
    prices_changed: report.pricesChanged,
    sources: report.sources,
    models_listed: app.catalog.models.length,
  });
}
