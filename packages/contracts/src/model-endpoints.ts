import { z } from "zod";

/**
 * `GET /v1/models/{id}/endpoints`: every source of one model, in OpenRouter's shape where it
 * fits (`data.endpoints[]` with `name`, `provider_name`, `tag`, `context_length`, `pricing` in
 * USD per token as decimal strings, `quantization`, `max_completion_tokens`, `status`,
 * `uptime_last_30m`), with the gateway's own fields beside it: the route kind, the prices in
 * USDC microunits per 1M tokens, and the figures the gateway measured on real traffic.
 */

/** What the gateway measured of one source for this model (decayed, half-life 15 minutes). */
export const measuredFiguresSchema = z.object({
  /** Enough recent samples for the figures to stand for the source (and to rank it). */
  measured: z.boolean(),
  /** Samples seen since this replica started (its own and other replicas'). */
  requests: z.number().int().min(0),
  ttft_ms: z.number().min(0).nullable(),
  tokens_per_second: z.number().min(0).nullable(),
  /** Share of attempts that succeeded, 0 to 1. */
  success_rate: z.number().min(0).max(1).nullable(),
  recent_errors: z.array(z.object({ at: z.string(), error: z.string() })).max(5),
});
export type MeasuredFigures = z.infer<typeof measuredFiguresSchema>;

const usdPerToken = z.string().regex(/^\d+(\.\d+)?$/);

export const modelEndpointSchema = z.object({
  name: z.string(),
  provider_name: z.string(),
  /** The name or host id to put in `provider.order` / `only` / `ignore` or `X-Pod-Providers`. */
  tag: z.string(),
  route: z.enum(["centralized", "marketplace", "key-relay"]),
  context_length: z.number().int().min(0),
  max_completion_tokens: z.number().int().min(0),
  quantization: z.string().nullable(),
  pricing: z.object({ prompt: usdPerToken, completion: usdPerToken, request: usdPerToken }),
  input_per_1m: z.number().int().min(0),
  output_per_1m: z.number().int().min(0),
  /** 0: routed normally; -1: demoted by health (tried after every healthy source). */
  status: z.union([z.literal(0), z.literal(-1)]),
  /** Measured success rate in percent, null until measured. */
  uptime_last_30m: z.number().min(0).max(100).nullable(),
  /** The host's own tokens-per-second figure (marketplace), replaced in ranking once measured. */
  announced_tokens_per_second: z.number().min(0).nullable(),
  performance: measuredFiguresSchema,
});
export type ModelEndpoint = z.infer<typeof modelEndpointSchema>;

export const modelEndpointsResponseSchema = z.object({
  data: z.object({
    id: z.string(),
    name: z.string(),
    context_length: z.number().int().min(0),
    endpoints: z.array(modelEndpointSchema),
  }),
});
export type ModelEndpointsResponse = z.infer<typeof modelEndpointsResponseSchema>;
