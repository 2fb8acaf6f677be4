import { z } from "zod";
import {
  headerValueSchema,
  httpStatusSchema,
  metricSchema,
  pricePer1mSchema,
  shortIdSchema,
  tokenCountSchema,
} from "./bounded-values";
import { traceparentSchema } from "./trace-context";
import { hostAttestationSchema } from "./usage-receipt";

/**
 * What gateway replicas tell each other through Redis pub/sub (JSON messages) so that every
 * replica sees every connected agent and a request on one replica can be served by an agent
 * connected to another. Two kinds of channel:
 *
 * - the shared channel: every replica's liveness beat, the state of the agents it holds
 *   (offers and free slots), a provider to take out of routing, and provider health;
 * - one channel per replica: jobs sent to the agents it holds, and the bytes of jobs it asked
 *   another replica to run, with their flow control (acks) and cancellation.
 *
 * Messages come from other processes, so each is parsed into these bounded types before it is
 * acted on; a message that does not parse is dropped.
 */

const replicaIdSchema = shortIdSchema;
const wireFormatSchema = z.enum(["openai", "anthropic"]);
/** Base64 of backend bytes: one chunk of a job (a agent frame carries at most 4 MiB). */
const chunkDataSchema = z.string().max(6 * 1024 * 1024);
const countSchema = z.number().int().min(0).max(1_000_000);

const agentOfferSchema = z.object({
  modelId: z.string().min(1).max(200),
  dialect: wireFormatSchema,
  inputPer1m: pricePer1mSchema,
  outputPer1m: pricePer1mSchema,
  requestPrice: pricePer1mSchema.optional(),
  maxConcurrent: countSchema,
  /** Jobs its home replica would accept now for this model. */
  freeSlots: countSchema,
});

/** One connected agent as the replica holding its WebSocket (its home) describes it. */
export const agentEntrySchema = z.object({
  providerId: shortIdSchema,
  /** The home replica's instance id: where jobs for this agent are sent. */
  replica: replicaIdSchema,
  /** This connection's id: a reconnect (to any replica) makes a new one. */
  connection: shortIdSchema,
  offers: z.array(agentOfferSchema).max(256),
  maxConcurrentTotal: countSchema.optional(),
  inFlight: countSchema,
  tokensPerSecond: metricSchema,
  /** The agent software's version as it announced it. */
  agentVersion: z.string().max(50).optional(),
  /** Milliseconds since the epoch: when it connected, and its last heartbeat. */
  connectedAt: z.number().int().min(0),
  seenAt: z.number().int().min(0),
  /** Increases with every change its home publishes: a reader keeps the newest it has seen. */
  revision: z.number().int().min(0),
});
export type AgentEntry = z.infer<typeof agentEntrySchema>;

const healthAttemptSchema = z.object({
  provider: z.string().min(1).max(200),
  ok: z.boolean(),
  ms: z.number().min(0).max(86_400_000),
  at: z.number().int().min(0),
});
export type HealthAttempt = z.infer<typeof healthAttemptSchema>;

/** One finished attempt of a source at a model, as measured by the replica that made it. */
const performanceSampleSchema = z.object({
  /** The (source, model) key: lib/routing/source-performance.ts `performanceKey`. */
  key: z.string().min(1).max(400),
  at: z.number().int().min(0),
  ok: z.boolean(),
  /** Time to first token, ms (absent when none came). */
  ttft: z.number().min(0).max(86_400_000).optional(),
  tokens: z.number().int().min(0).max(10_000_000),
  ms: z.number().min(0).max(86_400_000),
  error: z.string().max(100).optional(),
});
export type PerformanceSampleMessage = z.infer<typeof performanceSampleSchema>;

export const sharedMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("beat"), replica: replicaIdSchema, name: z.string().max(100) }),
  z.object({ type: z.literal("agent"), entry: agentEntrySchema }),
  z.object({
    type: z.literal("agent_gone"),
    providerId: shortIdSchema,
    connection: shortIdSchema,
  }),
  /** Take this provider out of routing and close its agent (retirement, slashing). */
  z.object({ type: z.literal("remove"), providerId: shortIdSchema }),
  z.object({
    type: z.literal("health"),
    replica: replicaIdSchema,
    attempts: z.array(healthAttemptSchema).max(1000),
  }),
  z.object({
    type: z.literal("performance"),
    replica: replicaIdSchema,
    samples: z.array(performanceSampleSchema).max(1000),
  }),
  /** A replica leaving cleanly: its agents and jobs are gone now, not after its beats stop. */
  z.object({ type: z.literal("leaving"), replica: replicaIdSchema }),
]);
export type SharedMessage = z.infer<typeof sharedMessageSchema>;

/** A signal's id, which its "heard" replies name: the sender waits for them before it answers. */
const signalIdSchema = z.string().regex(/^[0-9a-f]{16}$/);

/**
 * Signals on the replicas' signal channel (`<namespace>:signals`): state every replica caches
 * changed on one of them, so the others drop their copy now rather than when it expires.
 */
export const replicaSignalSchema = z.discriminatedUnion("type", [
  /** A key was revoked, rotated or re-limited: the sha256 (hex) of the secret that stops or changes. */
  z.object({
    type: z.literal("credential"),
    from: replicaIdSchema,
    id: signalIdSchema.optional(),
    hash: z.string().regex(/^[0-9a-f]{64}$/),
  }),
  /** The catalog (a price, a model) changed: read it again before the next request. */
  z.object({ type: z.literal("catalog"), from: replicaIdSchema, id: signalIdSchema.optional() }),
  /** A replica acted on signal `id`: its next request sees the change. */
  z.object({ type: z.literal("heard"), from: replicaIdSchema, id: signalIdSchema }),
]);
export type ReplicaSignal = z.infer<typeof replicaSignalSchema>;

const jobIdSchema = shortIdSchema;
/** The agent's own token counts for a job, when it sent them. */
const agentTokensSchema = z.record(z.string().max(50), tokenCountSchema);

export const directMessageSchema = z.discriminatedUnion("type", [
  /** Caller's replica → home: run this job on the agent of `providerId` (connection `connection`). */
  z.object({
    type: z.literal("job"),
    job: jobIdSchema,
    from: replicaIdSchema,
    providerId: shortIdSchema,
    connection: shortIdSchema,
    modelId: z.string().min(1).max(200),
    body: z.string().max(64 * 1024 * 1024),
    /** Bytes the home may send ahead of the caller's acks. */
    window: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024),
    /** The caller's replica's span of the hop, when it traces: the home's spans continue it. */
    traceparent: traceparentSchema.optional(),
  }),
  /** Caller's replica → home: the caller left; cancel at the agent's backend. */
  z.object({ type: z.literal("cancel"), job: jobIdSchema }),
  /** Caller's replica → home: the caller has taken `bytes` of the job's body so far. */
  z.object({ type: z.literal("ack"), job: jobIdSchema, bytes: z.number().int().min(0) }),
  /**
   * Home → caller's replica: the agent answered; its status and the first bytes. With `end`, these
   * were all its bytes and the job is over (a reply whose end came with its first bytes, in one message).
   */
  z.object({
    type: z.literal("start"),
    job: jobIdSchema,
    status: httpStatusSchema,
    contentType: headerValueSchema,
    data: chunkDataSchema,
    end: z
      .object({ tokens: agentTokensSchema.optional(), attestation: hostAttestationSchema.optional() })
      .optional(),
  }),
  z.object({ type: z.literal("chunk"), job: jobIdSchema, data: chunkDataSchema }),
  /** Home → caller's replica: the job ended; the agent's own token counts when it sent them. */
  z.object({
    type: z.literal("end"),
    job: jobIdSchema,
    tokens: agentTokensSchema.optional(),
    attestation: hostAttestationSchema.optional(),
  }),
  /** Home → caller's replica: the job failed (before its first byte: the caller's replica fails over). */
  z.object({
    type: z.literal("fail"),
    job: jobIdSchema,
    code: z.string().max(50),
    message: z.string().max(1000),
  }),
  /** A newer connection of this provider landed on another replica: close this one. */
  z.object({ type: z.literal("replaced"), providerId: shortIdSchema, connection: shortIdSchema }),
]);
export type DirectMessage = z.infer<typeof directMessageSchema>;

function parseWith<T>(schema: z.ZodType<T>, text: string): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** An agent directory entry (the Redis hash's value), or undefined when it does not parse. */
export function parseAgentEntry(text: string): AgentEntry | undefined {
  return parseWith(agentEntrySchema, text);
}

/** A message of the shared channel, or undefined when it does not parse. */
export function parseSharedMessage(text: string): SharedMessage | undefined {
  return parseWith(sharedMessageSchema, text);
}

/** A message of a replica's own channel, or undefined when it does not parse. */
export function parseDirectMessage(text: string): DirectMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const fast = jobTrafficMessage(value);
  if (fast) return fast;
  const parsed = directMessageSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

const printable = /^[\x21-\x7e]+$/;
const headerText = /^[\t\x20-\x7e]*$/;

function isShortId(value: unknown): value is string {
  return typeof value === "string" && value.length <= 100 && printable.test(value);
}

function isIntIn(value: unknown, min: number, max: number): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max;
}

function isChunkData(value: unknown): value is string {
  return typeof value === "string" && value.length <= 6 * 1024 * 1024;
}

/**
 * The messages of a job's own traffic (job, start, chunk, end, ack, cancel) checked by hand
 * against the bounds of `directMessageSchema`. Two of them are on the path of every job between
 * replicas, met by a process just woken for them, with cold caches: JSON.parse and the schema took
 * 120-150 µs there, JSON.parse and this check 50-60 µs. It only ever accepts: anything it does not
 * recognise as valid (token counts included) goes to the schema, which stays the definition
 * (lib/marketplace/replica-protocol.test.ts holds the two to the same answers).
 */
function jobTrafficMessage(value: unknown): DirectMessage | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const message = value as Record<string, unknown>;
  const job = message.job;
  if (!isShortId(job)) return undefined;
  switch (message.type) {
    case "job": {
      const { from, providerId, connection, modelId, body, window } = message;
      if (!isShortId(from) || !isShortId(providerId) || !isShortId(connection)) return undefined;
      if (typeof modelId !== "string" || modelId.length < 1 || modelId.length > 200) return undefined;
      if (typeof body !== "string" || body.length > 64 * 1024 * 1024) return undefined;
      if (!isIntIn(window, 1024, 64 * 1024 * 1024)) return undefined;
      if (message.traceparent !== undefined) return undefined;
      return { type: "job", job, from, providerId, connection, modelId, body, window };
    }
    case "start": {
      const { status, contentType, data, end } = message;
      if (!isIntIn(status, 200, 599) || !isChunkData(data)) return undefined;
      if (typeof contentType !== "string" || contentType.length > 200 || !headerText.test(contentType))
        return undefined;
      if (end === undefined) return { type: "start", job, status, contentType, data };
      if (typeof end !== "object" || end === null || Array.isArray(end) || Object.keys(end).length > 0)
        return undefined;
      return { type: "start", job, status, contentType, data, end: {} };
    }
    case "chunk":
      return isChunkData(message.data) ? { type: "chunk", job, data: message.data } : undefined;
    case "end":
      return "tokens" in message || "attestation" in message ? undefined : { type: "end", job };
    case "ack":
      return isIntIn(message.bytes, 0, Number.MAX_SAFE_INTEGER)
        ? { type: "ack", job, bytes: message.bytes }
        : undefined;
    case "cancel":
      return { type: "cancel", job };
    default:
      return undefined;
  }
}
