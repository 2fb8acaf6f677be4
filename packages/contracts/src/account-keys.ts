import { z } from "zod";

/**
 * The account's further API keys as `/proxy/<token>/keys` answers and accepts them: the shapes
 * the gateway writes and the dashboard reads. Money is integer USDC microunits.
 */

/** Most a key's limit may be: $1,000,000 per period, far above any real budget. */
export const maxKeyLimitMicrounits = 1_000_000_000_000;

export const keyLimitPeriodSchema = z.enum(["day", "month"]);

export const keyLimitSchema = z.object({
  amount_microunits: z.number().int().min(1).max(maxKeyLimitMicrounits),
  period: keyLimitPeriodSchema,
});

export const keyLabelSchema = z
  .string()
  .trim()
  .min(1, { message: "label must not be empty" })
  .max(64, { message: "label must be at most 64 characters" })
  .regex(/^[^\p{Cc}]*$/u, { message: "label must not contain control characters" });

/**
 * What a key may do beyond inference (which every key may): `read` the account's activity (every
 * key's requests, card credits, funding history; without it a key sees only its own requests),
 * `manage` the account (its keys, balance alert and auto top-up). The token may do everything.
 */
export const keyScopeSchema = z.enum(["inference", "read", "manage"]);

/** POST /proxy/<token>/keys */
export const createKeyRequestSchema = z.object({
  label: keyLabelSchema,
  /** null or absent: no limit of its own (the balance still bounds it). */
  limit: keyLimitSchema.nullable().optional(),
  /** Chosen once, at creation; absent: inference only. */
  scopes: z.array(keyScopeSchema).max(3).optional(),
  /** Every repeatable request the key makes asks the response cache; absent: false. */
  response_cache: z.boolean().optional(),
});

/** PATCH /proxy/<token>/keys/<id>: a new label, a new limit (`limit: null` lifts it), the response cache on or off. */
export const updateKeyRequestSchema = z
  .object({
    label: keyLabelSchema.optional(),
    limit: keyLimitSchema.nullable().optional(),
    response_cache: z.boolean().optional(),
  })
  .refine(
    (body) => body.label !== undefined || body.limit !== undefined || body.response_cache !== undefined,
    {
      message: "send a label, a limit or response_cache to change",
    },
  );

export const apiKeyViewSchema = z.object({
  id: z.string(),
  label: z.string(),
  /** The key's last six characters. */
  hint: z.string(),
  limit: keyLimitSchema.nullable(),
  /** Always includes `inference`. */
  scopes: z.array(keyScopeSchema),
  /** Every repeatable request the key makes asks the response cache. */
  response_cache: z.boolean(),
  /** Spent in the limit's current period (this UTC day or month; this month without a limit). */
  spent_microunits: z.number().int(),
  /** When the current period ends and the limit is whole again; null without a limit. */
  resets_at: z.string().nullable(),
  status: z.enum(["active", "revoked"]),
  created_at: z.string(),
  rotated_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

export const listKeysResponseSchema = z.object({ keys: z.array(apiKeyViewSchema) });

/** Creating or rotating a key: the key itself is in this answer and never again. */
export const issuedKeyResponseSchema = z.object({
  key: apiKeyViewSchema,
  api_key: z.string(),
  /** The key's OpenAI-compatible base URL (the key is the credential in the path, as a token is). */
  base_url: z.string(),
});

export type KeyLimitView = z.infer<typeof keyLimitSchema>;
export type KeyScope = z.infer<typeof keyScopeSchema>;
export type ApiKeyView = z.infer<typeof apiKeyViewSchema>;
export type ListKeysResponse = z.infer<typeof listKeysResponseSchema>;
export type IssuedKeyResponse = z.infer<typeof issuedKeyResponseSchema>;
export type CreateKeyRequest = z.infer<typeof createKeyRequestSchema>;
export type UpdateKeyRequest = z.infer<typeof updateKeyRequestSchema>;
