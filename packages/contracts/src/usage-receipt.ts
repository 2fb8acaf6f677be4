import { z } from "zod";
import { tokenCountSchema } from "./bounded-values";

/**
 * A signed usage receipt's claims: what one billed request was, what it cost and who served it.
 * The gateway signs them as the payload of a compact JWS (`alg: EdDSA`, Ed25519); anyone holding
 * the published keys (`GET /.well-known/pod-receipt-keys.json`) can check one without the gateway.
 * Amounts are USDC microunits as decimal strings, so no reader rounds them through a float.
 */

/** The JWS `typ` of a receipt: a verifier refuses any other signed object under a receipt key. */
export const receiptJwsType = "pod-receipt+jws";

export const microunitsSchema = z.string().regex(/^(0|[1-9]\d{0,24})$/, "microunits as a decimal string");
const sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, "a lowercase hex SHA-256");
/** A raw 32-byte Ed25519 public key, standard base64 (how agents enrol theirs). */
const ed25519PubkeySchema = z.string().regex(/^[A-Za-z0-9+/]{43}=$/, "a base64 Ed25519 public key");
const ed25519SignatureSchema = z.string().regex(/^[A-Za-z0-9+/]{86}==$/, "a base64 Ed25519 signature");

/** How the billed counts were arrived at. */
export const countingMethods = [
  /** The upstream's own usage report (a trusted centralized or relay source). */
  "upstream_report",
  /** The gateway counted the bytes it forwarded and relayed with its tokenizer. */
  "gateway_tokenizer",
  /** The gateway estimated (no tokenizer for the model's family: a count scaled up). */
  "gateway_estimate",
  /** A kept answer served again (the response cache): nothing counted, the charge is the hit's price. */
  "cache_hit",
] as const;

export const payerSchema = z.discriminatedUnion("kind", [
  /** A prepaid token's account (the id is the gateway's account number, not the token). */
  z.object({ kind: z.literal("account"), account_id: z.string().regex(/^\d{1,20}$/) }),
  /** An x402 payer: the wallet that paid, on its CAIP-2 network. */
  z.object({
    kind: z.literal("x402"),
    wallet: z.string().min(1).max(100),
    network: z.string().min(3).max(100),
  }),
]);

/**
 * What a marketplace agent signs at the end of a job (its `job_done`) with the key it enrolled:
 * the SHA-256 of the job's `request` as `JSON.stringify` writes it, of the bytes it answered, and
 * its own output count.
 */
export const jobAttestationSchema = z.object({
  request_sha256: sha256HexSchema,
  response_sha256: sha256HexSchema,
  /** Output tokens as the host's backend reported them, when it did (never what was billed). */
  output_tokens: tokenCountSchema.optional(),
  /** Ed25519 over {@link hostAttestationMessage} of the job id and the fields above. */
  signature: ed25519SignatureSchema,
});

export type JobAttestation = z.infer<typeof jobAttestationSchema>;

/**
 * A host's attestation inside a receipt: the gateway's signature covers it too, so neither side
 * can later deny what the other agreed to.
 */
export const hostAttestationSchema = jobAttestationSchema.extend({
  /** The host's enrolled Ed25519 key (its marketplace identity). */
  pubkey: ed25519PubkeySchema,
  /** The gateway's id of the job the host was sent. */
  job_id: z.string().min(1).max(100),
});

export type HostAttestation = z.infer<typeof hostAttestationSchema>;

export const usageReceiptSchema = z.object({
  v: z.literal(1),
  /** The gateway that signed it (its public base URL, or its configured name). */
  iss: z.string().min(1).max(300),
  request_id: z.string().regex(/^req_[0-9a-z]{1,64}$/),
  /** Seconds since the epoch when the request was settled: also what a key's window is checked at. */
  iat: z.number().int().min(0).max(1e11),
  payer: payerSchema,
  /** The model id the caller asked for. */
  model: z.string().min(1).max(300),
  source: z.object({
    /** `cache`: the response cache answered, with an answer first served by `provider_id`. */
    route: z.enum(["centralized", "marketplace", "key-relay", "cache"]),
    /** The provider's name (centralized) or its id (marketplace host, key relay). */
    provider_id: z.string().min(1).max(200),
  }),
  usage: z.object({
    input_tokens: tokenCountSchema,
    output_tokens: tokenCountSchema,
    cache_read_tokens: tokenCountSchema,
    cache_write_tokens: tokenCountSchema,
    counted_by: z.enum(countingMethods),
    /** The counts were cut to what the hold covered (the forwarded output limit, the priced prompt). */
    bounded: z.boolean(),
  }),
  /** Microunits per 1M tokens, as charged. */
  prices: z.object({
    input_per_1m: microunitsSchema,
    output_per_1m: microunitsSchema,
    cache_read_per_1m: microunitsSchema,
    cache_write_per_1m: microunitsSchema,
  }),
  /** What the payer was charged. */
  charge: microunitsSchema,
  /** What the serving host (marketplace) or relay owner earned of the charge; "0" for centralized. */
  host_share: microunitsSchema,
  outcome: z.enum([
    "completed",
    "client_aborted",
    "client_stalled",
    "upstream_error",
    "stream_cut",
    "interrupted",
  ]),
  /** SHA-256 of the caller's request body and of the response body it was sent (a stream's bytes). */
  hashes: z.object({ request_sha256: sha256HexSchema, response_sha256: sha256HexSchema }),
  host: hostAttestationSchema.optional(),
});

export type UsageReceipt = z.infer<typeof usageReceiptSchema>;

/**
 * The exact bytes a host signs: one line per field, so any language can rebuild them without a
 * JSON canonicalisation library. The job id is the gateway's, so an attestation of one job never
 * stands for another.
 */
export function hostAttestationMessage(fields: {
  jobId: string;
  requestSha256: string;
  responseSha256: string;
  outputTokens: number | undefined;
}): string {
  return [
    "pod-job-attestation/v1",
    fields.jobId,
    fields.requestSha256,
    fields.responseSha256,
    fields.outputTokens === undefined ? "" : String(fields.outputTokens),
  ].join("\n");
}

/**
 * One published receipt key: a JWK (RFC 8037 OKP Ed25519) with the window it signed in, as JWT
 * NumericDates. A receipt verifies under a key only if its `iat` is inside the window: a
 * retired key's later signatures are refused, its earlier ones stay good.
 */
export const receiptKeySchema = z.object({
  kty: z.literal("OKP"),
  crv: z.literal("Ed25519"),
  x: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "a base64url 32-byte key"),
  kid: z.string().min(1).max(100),
  alg: z.literal("EdDSA"),
  use: z.literal("sig"),
  nbf: z.number().int().min(0),
  /** Absent while the key is the one signing. */
  exp: z.number().int().min(0).optional(),
});

export type ReceiptKey = z.infer<typeof receiptKeySchema>;

export const receiptKeySetSchema = z.object({
  keys: z.array(receiptKeySchema).min(1).max(100),
});

export type ReceiptKeySet = z.infer<typeof receiptKeySetSchema>;
