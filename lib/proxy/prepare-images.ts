import { z } from "zod";
import type { CatalogModel } from "../catalog/models";
import { resolveModel } from "../catalog/resolve-model";
import { safeParseJson } from "../dialects/translate/json-value";
import { parseRequestBody } from "../dialects/translate/parse-body";
import type { UpstreamOperation } from "../dialects/wire-format";
import { badRequest, GatewayError } from "../errors/gateway-error";
import type { ApiRequest } from "../http/api-request";
import { readBodyBytes } from "../http/read-body";
import { perRequestPrice } from "../pricing/cost";
import { dearestRate, type ImageAsk, type ImageRate, ratesFor } from "../pricing/image-price";
import type { Candidate } from "../providers/candidate";
import { dispatchHttp } from "../providers/http-dispatch";
import type { PriceCeilings } from "../routing/price-ceilings";
import type { RoutingServices } from "../routing/routing-state";

export type ImageOperation = "generate" | "edit";

/** One source of the model's images: its rates for this operation, and the body it is sent. */
interface ImageCandidate {
  candidate: Candidate;
  /** The rates this request may end up paying at this source (its size and quality, or every one `auto` may pick). */
  rates: ImageRate[];
}

/** An images request read, checked and routed: what the hold, the quote and serving need. */
export interface PreparedImages {
  model: CatalogModel;
  operation: ImageOperation;
  /** Images asked for (`n`). */
  count: number;
  ask: ImageAsk;
  sources: ImageCandidate[];
  /** `count` × the dearest rate of any source: a hold at this covers a failover to any of them. */
  worstCaseMicrounits: bigint;
  /** The bytes received, as the x402 quote binds them. */
  rawBody: Buffer;
}

/** OpenAI's bounds: 10 images a request; gpt-image-1 takes the longest prompt, 32,000 characters. */
const fields = {
  model: z.string().trim().min(1).max(200).default("dall-e-2"),
  prompt: z.string().min(1, "prompt is required").max(32_000),
  n: z.coerce.number().int().min(1).max(10).default(1),
  size: z.string().max(20).nullish(),
  quality: z.string().max(20).nullish(),
  response_format: z.enum(["url", "b64_json"]).nullish(),
};
const generationSchema = z.looseObject({
  ...fields,
  // Partial images as a stream are not served: the gateway bills whole images delivered.
  stream: z.literal(false, "stream is not supported for images").nullish(),
});
const editSchema = z.object(fields);

const operations: Record<ImageOperation, UpstreamOperation> = {
  generate: "image_generations",
  edit: "image_edits",
};

/**
 * The size and quality an upstream is asked for: the caller's, or the model's default (the
 * headline rate's) where it left one out, so what is billed is what was asked for. Quality is
 * only sent where the source sells more than one, as OpenAI's dall-e-2 takes none.
 */
function resolvedAsk(rates: readonly ImageRate[], ask: ImageAsk): ImageAsk & { sendQuality: boolean } {
  const headline = rates[0];
  const qualities = new Set(rates.map((rate) => rate.quality));
  return {
    size: ask.size ?? headline?.size,
    quality: ask.quality ?? headline?.quality,
    sendQuality: ask.quality !== undefined || qualities.size > 1,
  };
}

/** The rate one delivered image is billed at: the one asked for, or (for `auto`) the one the reply names, else the dearest. */
export function rateOfDelivered(rates: readonly ImageRate[], reply: ImageAsk): bigint {
  const named = ratesFor(rates, reply);
  return dearestRate(named.length === 1 ? named : rates) ?? 0n;
}

interface ReadRequest {
  modelId: string;
  count: number;
  ask: ImageAsk;
  /** The body for one source: the caller's, with its model id, size and quality. */
  bodyFor(upstreamModelId: string, ask: ImageAsk & { sendQuality: boolean }): Promise<Payload>;
}

interface Payload {
  body: string | Uint8Array;
  contentType?: string;
}

const fieldsOf = (body: z.infer<typeof editSchema>) => ({
  modelId: body.model,
  count: body.n,
  ask: { size: body.size ?? undefined, quality: body.quality ?? undefined },
});

function readGeneration(raw: Buffer): ReadRequest {
  const parsed = safeParseJson(raw.toString("utf8"));
  if (parsed === undefined) throw badRequest("request body must be valid JSON");
  const body = parseRequestBody(generationSchema, parsed);
  return {
    ...fieldsOf(body),
    bodyFor: async (upstreamModelId, ask) => {
      const { quality: _quality, ...rest } = body;
      return {
        body: JSON.stringify({
          ...rest,
          model: upstreamModelId,
          ...(ask.size ? { size: ask.size } : {}),
          ...(ask.sendQuality && ask.quality ? { quality: ask.quality } : {}),
        }),
      };
    },
  };
}

/** A multipart edit: its text fields checked, its files (image, image[], mask) passed on as they came. */
async function readEdit(raw: Buffer, contentType: string): Promise<ReadRequest> {
  if (!/^multipart\/form-data/i.test(contentType))
    throw badRequest("image edits are multipart/form-data, as OpenAI's API takes them");
  const form = await new Response(new Uint8Array(raw), { headers: { "content-type": contentType } })
    .formData()
    .catch(() => {
      throw badRequest("the multipart body could not be read");
    });
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : undefined;
  };
  if (![...form.values()].some((value) => typeof value !== "string"))
    throw badRequest("an image file is required", { param: "image" });
  const body = parseRequestBody(
    editSchema,
    Object.fromEntries(
      Object.keys(fields).flatMap((name) => (text(name) === undefined ? [] : [[name, text(name)]])),
    ),
  );
  return {
    ...fieldsOf(body),
    bodyFor: async (upstreamModelId, ask) => {
      const upstream = new FormData();
      for (const [name, value] of form.entries())
        if (name !== "model" && name !== "size" && name !== "quality") upstream.append(name, value);
      upstream.set("model", upstreamModelId);
      if (ask.size) upstream.set("size", ask.size);
      if (ask.sendQuality && ask.quality) upstream.set("quality", ask.quality);
      const encoded = new Response(upstream);
      return {
        body: new Uint8Array(await encoded.arrayBuffer()),
        contentType: encoded.headers.get("content-type") ?? "multipart/form-data",
      };
    },
  };
}

/**
 * Reads an images request (OpenAI's generations JSON or edits multipart), resolves the model,
 * and builds one candidate per configured source that sells its images at the size and quality
 * asked, each carrying the body it is sent. `X-Pod-Max-Price-Request` caps the request's worst
 * price (`n` × per image); token ceilings do not apply to images.
 */
export async function prepareImages(
  app: RoutingServices,
  request: ApiRequest,
  operation: ImageOperation,
  options: { bodyLimit: number; ceilings: PriceCeilings },
): Promise<PreparedImages> {
  const raw = await readBodyBytes(request, options.bodyLimit);
  const read =
    operation === "generate"
      ? readGeneration(raw)
      : await readEdit(raw, request.headers.get("content-type") ?? "");
  const model = resolveModel(app.catalog, read.modelId);
  if (!model)
    throw new GatewayError("model_not_found", `model not found: ${read.modelId}`, { param: "model" });
  if (model.kind !== "image") throw badRequest(`${model.id} is not an image model`, { param: "model" });
  const sources: ImageCandidate[] = [];
  let sold = false;
  for (const price of app.catalog.pricesFor(model)) {
    const table = operation === "generate" ? price.images?.generate : price.images?.edit;
    const upstream = app.upstreams.get(price.provider);
    if (!table || table.length === 0 || !upstream) continue;
    sold = true;
    const ask = resolvedAsk(table, read.ask);
    const rates = ratesFor(table, ask);
    const dearest = dearestRate(rates);
    if (dearest === undefined) continue;
    const payload = await read.bodyFor(price.upstreamModelId, ask);
    const worst = dearest * BigInt(read.count);
    sources.push({
      rates,
      candidate: {
        route: "centralized",
        providerId: upstream.name,
        dialect: upstream.dialect,
        upstreamModelId: price.upstreamModelId,
        price: perRequestPrice(worst),
        // The payload was built for this source beforehand (a multipart body is encoded once).
        dispatch: (_json, dispatchOptions) =>
          dispatchHttp(upstream, payload.body, {
            ...dispatchOptions,
            operation: operations[operation],
            ...(payload.contentType ? { contentType: payload.contentType } : {}),
          }),
      },
    });
  }
  if (sources.length === 0) {
    if (!sold)
      throw new GatewayError(
        "no_provider",
        `no configured provider ${operation === "edit" ? "edits images with" : "serves"} ${model.id}`,
      );
    throw badRequest(`${model.id} is not sold at that size and quality`, { param: "size" });
  }
  const ceiling = options.ceilings.requestPrice;
  const affordable = sources.filter(
    ({ candidate }) => ceiling === undefined || (candidate.price.requestPrice ?? 0n) <= ceiling,
  );
  if (affordable.length === 0) {
    const cheapest = sources
      .map(({ candidate }) => candidate.price.requestPrice ?? 0n)
      .sort((a, b) => (a < b ? -1 : 1))[0];
    throw new GatewayError("no_provider_at_price", "No provider available at your price ceiling.", {
      details: { suggested_min_request_price: Number(cheapest ?? 0n) },
    });
  }
  return {
    model,
    operation,
    count: read.count,
    ask: read.ask,
    sources: affordable,
    worstCaseMicrounits: affordable.reduce((most, { candidate }) => {
      const worst = candidate.price.requestPrice ?? 0n;
      return worst > most ? worst : most;
    }, 0n),
    rawBody: raw,
  };
}
