import { z } from "zod";
import {
  durationMsSchema,
  headerValueSchema,
  metricSchema,
  pricePer1mSchema,
  shortIdSchema,
  tokenCountSchema,
} from "./bounded-values";
import { traceparentSchema } from "./trace-context";
import { jobAttestationSchema } from "./usage-receipt";

/**
 * The agent ⇄ gateway WebSocket protocol (JSON text frames), as the reference service's
 * provider agent speaks it. The gateway (lib/marketplace) and the agent (agent/) both import
 * this module, so the two sides cannot drift. Additions of ours are optional fields and message
 * types an agent that does not know them ignores: `format` on a model, `status`/`content_type`
 * on the first chunk, and `capabilities_ack`, `job_pause`, `job_resume` from the gateway.
 *
 * Every number and header-bound string is bounded (./bounded-values.ts): a frame that does not
 * parse is a protocol violation, never something the gateway acts on.
 */

const wireFormatSchema = z.enum(["openai", "anthropic"]);
export type WireFormat = z.infer<typeof wireFormatSchema>;

// ── agent → gateway ────────────────────────────────────────────────────────────

const authResponseSchema = z.object({
  type: z.literal("auth_response"),
  /** Raw 32-byte Ed25519 public key, base64. */
  pubkey: z.string().min(1).max(100),
  /** Ed25519 signature over the raw nonce bytes, base64. */
  signature: z.string().min(1).max(200),
  agent_version: z.string().max(50).optional(),
  /** Sent on first enrolment, before a provider id is bound to this key. */
  enrollment_code: z.string().max(50).optional(),
});

const capabilityModelSchema = z.object({
  model_id: z.string().min(1).max(200),
  /** Whole microunits per 1M tokens, as a JSON integer or a digit string. */
  input_per_1m: pricePer1mSchema,
  output_per_1m: pricePer1mSchema,
  /**
   * A fixed price per request, whole microunits: the model is then sold per request, whatever
   * the token counts, and `input_per_1m` and `output_per_1m` are 0.
   */
  request_price_microunits: pricePer1mSchema.optional(),
  max_concurrent: z.number().int().positive().max(1024),
  backend: z.string().max(50).optional(),
  context_window: tokenCountSchema.optional(),
  /** The wire format the agent's backend speaks for this model (ours; OpenAI when absent). */
  format: wireFormatSchema.optional(),
});

const capabilitiesSchema = z.object({
  type: z.literal("capabilities"),
  models: z.array(capabilityModelSchema).max(256),
  limits: z
    .object({
      max_concurrent_total: z.number().int().positive().max(4096).optional(),
      max_tokens_per_minute: tokenCountSchema.optional(),
    })
    .optional(),
  metadata: z.record(z.string().max(100), z.unknown()).optional(),
});

const heartbeatSchema = z.object({
  type: z.literal("heartbeat"),
  queue_depth: z.number().int().min(0).max(1_000_000).optional(),
  tokens_per_sec_p50: metricSchema.optional(),
  p50_latency_ms: metricSchema.optional(),
  p95_latency_ms: metricSchema.optional(),
  error_rate_60s: z.number().min(0).max(1).optional(),
});

/** At most this many base64 characters of backend bytes in one chunk (3 MiB of bytes). */
const maxChunkBase64 = 4 * 1024 * 1024;

const jobChunkSchema = z.object({
  type: z.literal("job_chunk"),
  job_id: shortIdSchema,
  /** Raw backend bytes, base64. */
  data: z
    .string()
    .max(maxChunkBase64)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, { message: "data must be base64" }),
  /** On the first chunk: the backend's HTTP status and content type (ours; 200 and by `stream` when absent). */
  status: z.number().int().min(200).max(599).optional(),
  content_type: headerValueSchema.optional(),
});

/** The agent's own token counts: compared with the gateway's count, never billed. */
const agentTokenCountsSchema = z
  .record(z.string().max(40), tokenCountSchema)
  .refine((counts) => Object.keys(counts).length <= 16, { message: "at most 16 token counts" });

const jobDoneSchema = z.object({
  type: z.literal("job_done"),
  job_id: shortIdSchema,
  tokens: agentTokenCountsSchema.optional(),
  duration_ms: durationMsSchema.optional(),
  /** The agent's signed statement of what it was sent and answered (it goes into the receipt). */
  attestation: jobAttestationSchema.optional(),
});

const jobErrorSchema = z.object({
  type: z.literal("job_error"),
  job_id: shortIdSchema,
  error_code: z
    .string()
    .max(50)
    .regex(/^[a-z0-9_]*$/, { message: "error_code is snake_case" }),
  message: z.string().max(2000).optional(),
  tokens_emitted: tokenCountSchema.optional(),
});

const agentMessageSchema = z.discriminatedUnion("type", [
  authResponseSchema,
  capabilitiesSchema,
  heartbeatSchema,
  jobChunkSchema,
  jobDoneSchema,
  jobErrorSchema,
]);

export type AgentMessage = z.infer<typeof agentMessageSchema>;
export type CapabilitiesMessage = z.infer<typeof capabilitiesSchema>;
export type JobChunkMessage = z.infer<typeof jobChunkSchema>;
export type JobDoneMessage = z.infer<typeof jobDoneSchema>;
export type JobErrorMessage = z.infer<typeof jobErrorSchema>;

// ── gateway → agent ────────────────────────────────────────────────────────────

const jobSchema = z.object({
  type: z.literal("job"),
  job_id: shortIdSchema,
  model_id: z.string().min(1).max(200),
  /** The request body for the backend, in `format`; the agent sets `model` to its own id. */
  request: z.record(z.string(), z.unknown()),
  format: wireFormatSchema,
  deadline_ms: durationMsSchema,
  /** W3C trace context of the gateway's span for this job, when the gateway traces. */
  traceparent: traceparentSchema.optional(),
});

const gatewayMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("auth_challenge"), nonce: z.string().min(1).max(200) }),
  z.object({ type: z.literal("auth_ok"), provider_id: z.string().max(100), status: z.string().max(40) }),
  z.object({ type: z.literal("auth_failed"), reason: z.string().max(2000) }),
  z.object({
    type: z.literal("capabilities_ack"),
    accepted: z.array(z.string().max(200)).max(256),
    rejected: z.array(z.object({ model_id: z.string().max(200), reason: z.string().max(2000) })).max(256),
  }),
  jobSchema,
  z.object({ type: z.literal("job_cancel"), job_id: shortIdSchema }),
  z.object({ type: z.literal("job_pause"), job_id: shortIdSchema }),
  z.object({ type: z.literal("job_resume"), job_id: shortIdSchema }),
]);

export type GatewayMessage = z.infer<typeof gatewayMessageSchema>;
export type JobMessage = z.infer<typeof jobSchema>;

/** WebSocket close codes the gateway uses (4000–4999 is the application range). */
export const closeCodes = {
  authFailed: 4001,
  /** Another connection with the same identity took over; the agent should not reconnect. */
  superseded: 4002,
  /** The host retired or was suspended. */
  retired: 4003,
  /** The agent broke the protocol (frames for jobs it was never given, unparseable frames). */
  protocolError: 4004,
  authTimeout: 4008,
} as const;

// ── parsing ────────────────────────────────────────────────────────────────────

/** A frame that does not parse: why, and the job it names if it names one (so only that job fails). */
export interface FrameViolation {
  reason: string;
  jobId: string | undefined;
}

export type ParsedFrame<T> = { ok: true; message: T } | { ok: false; violation: FrameViolation };

function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid frame";
  const path = issue.path.map(String).join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
}

function parseFrame<T>(schema: z.ZodType<T>, text: string): ParsedFrame<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, violation: { reason: "frame is not JSON", jobId: undefined } };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, message: parsed.data };
  const jobId =
    typeof value === "object" && value !== null && "job_id" in value && typeof value.job_id === "string"
      ? value.job_id.slice(0, 100)
      : undefined;
  return { ok: false, violation: { reason: describe(parsed.error), jobId } };
}

/** Parses one agent → gateway text frame. */
export function parseAgentFrame(text: string): ParsedFrame<AgentMessage> {
  return parseFrame(agentMessageSchema, text);
}

/** Parses one gateway → agent text frame. */
export function parseGatewayFrame(text: string): ParsedFrame<GatewayMessage> {
  return parseFrame(gatewayMessageSchema, text);
}
