import { z } from "zod";
import { traceparentSchema } from "./trace-context";
import { microunitsSchema, payerSchema, usageReceiptSchema } from "./usage-receipt";

/**
 * A per-request usage record, as the gateway sends it to the operator's webhook
 * (USAGE_RECORDS_WEBHOOK_URL, batched in a {@link usageRecordBatchSchema}) or as the JSON body
 * of an OTLP log record (OTEL_EXPORTER_OTLP_LOGS_ENDPOINT). One per billed request; a retried
 * delivery can repeat one, so a receiver keys them by `request_id`. It never carries a token or
 * a key, and carries the request and response text only when USAGE_RECORDS_CONTENT=on.
 */
export const usageRecordSchema = z.object({
  request_id: usageReceiptSchema.shape.request_id,
  /** When the request was settled (ISO 8601). */
  time: z.string().max(40),
  payer: payerSchema,
  /** The model id the caller asked for, and the one the source was asked for. */
  model: z.string().min(1).max(300),
  served_model: z.string().min(1).max(300),
  route: usageReceiptSchema.shape.source.shape.route,
  provider_id: z.string().min(1).max(200),
  usage: usageReceiptSchema.shape.usage.omit({ bounded: true }),
  charge_microunits: microunitsSchema,
  host_share_microunits: microunitsSchema,
  outcome: usageReceiptSchema.shape.outcome,
  /** The request's signed receipt (compact JWS), when receipts are on. */
  receipt: z.string().max(20_000).optional(),
  /** The W3C trace context of the request's settlement span, when traces are on. */
  traceparent: traceparentSchema.optional(),
  /** Only with USAGE_RECORDS_CONTENT=on: the caller's request body and the text it was answered. */
  content: z.object({ request: z.string(), response: z.string() }).optional(),
});

export type UsageRecord = z.infer<typeof usageRecordSchema>;

/** The body of one webhook POST, signed in `Pod-Signature` like every gateway webhook. */
export const usageRecordBatchSchema = z.object({
  type: z.literal("usage.records"),
  sent_at: z.string().max(40),
  records: z.array(usageRecordSchema).min(1).max(1000),
});

export type UsageRecordBatch = z.infer<typeof usageRecordBatchSchema>;
