import { z } from "zod";

/**
 * The gateway's one error vocabulary, and the error bodies a caller reads: as an HTTP error
 * response before the first byte, and as an in-stream error frame after it. The body is the
 * same in both places; only its framing differs (an OpenAI stream sends it as `data: <body>`,
 * an Anthropic stream as `event: error` + `data: <body>`), so a client reads one kind for one
 * failure whenever it happens.
 */
export const gatewayErrorKinds = [
  "bad_request",
  "unauthorized",
  "insufficient_balance",
  "key_limit_reached",
  "payment_required",
  "no_provider_at_price",
  "forbidden",
  "not_found",
  "model_not_found",
  "method_not_allowed",
  "conflict",
  "payload_too_large",
  "rate_limited",
  "internal_error",
  "upstream_error",
  "no_provider",
  "service_unavailable",
  "upstream_timeout",
] as const;

export type GatewayErrorKind = (typeof gatewayErrorKinds)[number];

export const gatewayErrorKindSchema = z.enum(gatewayErrorKinds);

/** What openai-node's APIError reads: `type` and `code` are the gateway's kind. */
export const openaiErrorBodySchema = z.object({
  error: z.object({
    message: z.string(),
    type: gatewayErrorKindSchema,
    code: gatewayErrorKindSchema,
    param: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
  request_id: z.string().optional(),
});

/**
 * What the Anthropic SDK reads: `error.type` in Anthropic's own names (so its clients retry
 * `overloaded_error` and show `billing_error`), the gateway's kind beside it as `error.code`.
 */
export const anthropicErrorBodySchema = z.object({
  type: z.literal("error"),
  error: z.object({
    type: z.string(),
    code: gatewayErrorKindSchema,
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
  request_id: z.string().optional(),
});

export type OpenaiErrorBody = z.infer<typeof openaiErrorBodySchema>;
export type AnthropicErrorBody = z.infer<typeof anthropicErrorBodySchema>;
