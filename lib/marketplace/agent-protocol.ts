import { z } from "zod";

/**
 * The agent ⇄ gateway WebSocket protocol (JSON text frames), as the reference service's
 * provider agent speaks it. Additions of ours are optional fields and message types an
 * agent that does not know them ignores: `format` on a model, `status`/`content_type` on
 * the first chunk, and `capabilities_ack`, `job_pause`, `job_resume` from the gateway.
 */

/** Whole microunits per 1M tokens, as a JSON integer or a digit string. */
const microunits = z.union([
  z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  z.string().regex(/^\d{1,18}$/),
]);

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
  input_per_1m: microunits,
  output_per_1m: microunits,
  max_concurrent: z.number().int().positive().max(1024),
  backend: z.string().max(50).optional(),
  context_window: z.number().int().positive().optional(),
  /** The wire format the agent's backend speaks for this model (ours; OpenAI when absent). */
  format: z.enum(["openai", "anthropic"]).optional(),
});

const capabilitiesSchema = z.object({
  type: z.literal("capabilities"),
  models: z.array(capabilityModelSchema).max(256),
  limits: z
    .object({
      max_concurrent_total: z.number().int().positive().max(4096).optional(),
      max_tokens_per_minute: z.number().int().nonnegative().optional(),
    })
    .optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const heartbeatSchema = z.object({
  type: z.literal("heartbeat"),
  queue_depth: z.number().optional(),
  tokens_per_sec_p50: z.number().nonnegative().optional(),
  p50_latency_ms: z.number().optional(),
  p95_latency_ms: z.number().optional(),
  error_rate_60s: z.number().optional(),
});

const jobChunkSchema = z.object({
  type: z.literal("job_chunk"),
  job_id: z.string().min(1).max(100),
  /** Raw backend bytes, base64. */
  data: z.string(),
  /** On the first chunk: the backend's HTTP status and content type (ours; 200 and by `stream` when absent). */
  status: z.number().int().min(100).max(599).optional(),
  content_type: z.string().max(200).optional(),
});

const jobDoneSchema = z.object({
  type: z.literal("job_done"),
  job_id: z.string().min(1).max(100),
  /** The agent's own counts: logged, never billed (the gateway counts from the relayed bytes). */
  tokens: z.record(z.string(), z.number()).optional(),
  duration_ms: z.number().optional(),
});

const jobErrorSchema = z.object({
  type: z.literal("job_error"),
  job_id: z.string().min(1).max(100),
  error_code: z.string().max(50),
  message: z.string().max(2000).optional(),
  tokens_emitted: z.number().optional(),
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

export type GatewayMessage =
  | { type: "auth_challenge"; nonce: string }
  | { type: "auth_ok"; provider_id: string; status: string }
  | { type: "auth_failed"; reason: string }
  | {
      type: "capabilities_ack";
      accepted: string[];
      rejected: Array<{ model_id: string; reason: string }>;
    }
  | {
      type: "job";
      job_id: string;
      model_id: string;
      request: unknown;
      format: "openai" | "anthropic";
      deadline_ms: number;
    }
  | { type: "job_cancel"; job_id: string }
  | { type: "job_pause"; job_id: string }
  | { type: "job_resume"; job_id: string };

/** WebSocket close codes the gateway uses (4000–4999 is the application range). */
export const closeCodes = {
  authFailed: 4001,
  /** Another connection with the same identity took over; the agent should not reconnect. */
  superseded: 4002,
  /** The host retired or was suspended. */
  retired: 4003,
  protocolError: 4004,
  authTimeout: 4008,
} as const;

/** Parses one text frame; undefined for anything that is not a known, well-formed message. */
export function parseAgentMessage(text: string): AgentMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = agentMessageSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
