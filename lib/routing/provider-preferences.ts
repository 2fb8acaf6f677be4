import { z } from "zod";
import { badRequest } from "../errors/gateway-error";
import type { PriceCeilings } from "./price-ceilings";

/**
 * OpenRouter's request fields for routing, read from the body of any of the three wire formats:
 * the `provider` object (which sources, in what order, at what price, with what guarantees) and
 * the `models` fallback list. They are the gateway's, never the upstream's: `readBodyRouting`
 * returns the body without them. Every field is honoured or refused; none is dropped silently
 * (content/docs/routing/provider-preferences.mdx lists them).
 */

const sortKeys = ["price", "throughput", "latency"] as const;
export type SortKey = (typeof sortKeys)[number];

/** OpenRouter's quantization names. */
const quantizationNames = ["int4", "int8", "fp4", "fp6", "fp8", "fp16", "bf16", "fp32", "unknown"] as const;

const slugList = z.array(z.string().trim().min(1).max(100).toLowerCase()).max(32);
/** USD per 1M tokens, as OpenRouter takes it (a number or a decimal string). */
const usdPer1m = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^\d{1,9}(\.\d{1,12})?$/),
  ])
  .transform(Number)
  .pipe(z.number().min(0).max(1_000_000));

const providerSchema = z.strictObject({
  order: slugList.optional(),
  only: slugList.optional(),
  ignore: slugList.optional(),
  allow_fallbacks: z.boolean().optional(),
  sort: z
    .union([
      z.enum(sortKeys),
      z.strictObject({ by: z.enum(sortKeys), partition: z.enum(["model", "none"]).optional() }),
    ])
    .optional(),
  max_price: z
    .strictObject({
      prompt: usdPer1m.optional(),
      completion: usdPer1m.optional(),
      /** USD per request: a source with a per-request price above it is refused. */
      request: usdPer1m.optional(),
      // No chat source of this gateway charges per image: any ceiling on it holds.
      image: usdPer1m.optional(),
    })
    .optional(),
  require_parameters: z.boolean().optional(),
  data_collection: z.enum(["allow", "deny"]).optional(),
  quantizations: z.array(z.enum(quantizationNames)).max(quantizationNames.length).optional(),
});

const modelsSchema = z.array(z.string().trim().min(1).max(200)).min(1).max(8);

/** The `provider` object, parsed: slugs lower-case, prices in USDC microunits per 1M tokens. */
export interface ProviderPreferences {
  order?: string[];
  only?: string[];
  ignore?: string[];
  /** false: no source past the first (or past those named in `order`). */
  allowFallbacks: boolean;
  sort?: SortKey;
  maxPrice: PriceCeilings;
  /** `max_price.request`, in microunits per request. */
  maxRequestPrice?: bigint;
  requireParameters: boolean;
  dataCollection?: "allow" | "deny";
  quantizations?: string[];
}

/** What a body asked of routing, and the body to send upstream without it. */
export interface BodyRouting {
  preferences: ProviderPreferences | undefined;
  /** Models to try, in order, after the request's own `model`. */
  fallbackModels: string[];
  body: Record<string, unknown>;
}

const gatewayFields = ["provider", "models", "route"] as const;

/** USD with up to 12 decimals → whole microunits (rounded: a finer ceiling means nothing). */
const toMicrounits = (usd: number) => BigInt(Math.round(usd * 1_000_000));

function invalid(field: string, error: z.ZodError): never {
  const issue = error.issues[0];
  const path = [field, ...(issue?.path ?? []).map(String)].join(".");
  throw badRequest(`${path}: ${issue?.message ?? "invalid value"}`, { param: path });
}

function parsePreferences(raw: unknown): ProviderPreferences | undefined {
  if (raw === undefined || raw === null) return undefined;
  const parsed = providerSchema.safeParse(raw);
  if (!parsed.success) invalid("provider", parsed.error);
  const value = parsed.data;
  const maxPrice: PriceCeilings = {
    ...(value.max_price?.prompt === undefined ? {} : { inputPer1m: toMicrounits(value.max_price.prompt) }),
    ...(value.max_price?.completion === undefined
      ? {}
      : { outputPer1m: toMicrounits(value.max_price.completion) }),
  };
  return {
    ...(value.order ? { order: value.order } : {}),
    ...(value.only ? { only: value.only } : {}),
    ...(value.ignore ? { ignore: value.ignore } : {}),
    allowFallbacks: value.allow_fallbacks ?? true,
    ...(value.sort ? { sort: typeof value.sort === "string" ? value.sort : value.sort.by } : {}),
    maxPrice,
    ...(value.max_price?.request === undefined
      ? {}
      : { maxRequestPrice: toMicrounits(value.max_price.request) }),
    requireParameters: value.require_parameters ?? false,
    ...(value.data_collection ? { dataCollection: value.data_collection } : {}),
    ...(value.quantizations ? { quantizations: value.quantizations } : {}),
  };
}

/**
 * Reads `provider`, `models` and `route` (OpenRouter's `"fallback"`, the only value it takes)
 * from a caller's body and returns the body without them. Without `model`, the first of
 * `models` is the model; the rest of `models` (not repeating it) are tried after it.
 * @throws GatewayError bad_request naming the first malformed field.
 */
export function readBodyRouting(body: Record<string, unknown>): BodyRouting {
  if (!gatewayFields.some((field) => field in body))
    return { preferences: undefined, fallbackModels: [], body };
  if (body.route !== undefined && body.route !== null && body.route !== "fallback")
    throw badRequest('route: the only routing strategy is "fallback" (the models are tried in order)', {
      param: "route",
    });
  const preferences = parsePreferences(body.provider);
  let models: string[] = [];
  if (body.models !== undefined && body.models !== null) {
    const parsed = modelsSchema.safeParse(body.models);
    if (!parsed.success) invalid("models", parsed.error);
    models = parsed.data;
  }
  const { provider: _provider, models: _models, route: _route, ...rest } = body;
  const primary = typeof rest.model === "string" && rest.model.trim() !== "" ? rest.model : models[0];
  const stripped = primary === undefined ? rest : { ...rest, model: primary };
  const fallbackModels = [...new Set(models.filter((model) => model !== primary))];
  return { preferences, fallbackModels, body: stripped };
}

/** The stricter of two ceilings on each side: a header and a body field that disagree never widen a limit. */
export function stricterCeilings(a: PriceCeilings, b: PriceCeilings): PriceCeilings {
  const lower = (x: bigint | undefined, y: bigint | undefined) =>
    x === undefined ? y : y === undefined ? x : x < y ? x : y;
  const inputPer1m = lower(a.inputPer1m, b.inputPer1m);
  const outputPer1m = lower(a.outputPer1m, b.outputPer1m);
  return {
    ...(inputPer1m === undefined ? {} : { inputPer1m }),
    ...(outputPer1m === undefined ? {} : { outputPer1m }),
  };
}
