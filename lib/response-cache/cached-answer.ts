import { z } from "zod";

/**
 * One kept answer: the whole reply in the source's wire format (a stream is kept as the reply
 * it adds up to), what it cost when it was generated, and who generated it. Read back from Redis,
 * so parsed at that boundary like any outside value.
 */
const cachedAnswerSchema = z.object({
  v: z.literal(1),
  /** The wire format of `body`: a source's (openai or anthropic). */
  dialect: z.enum(["openai", "anthropic"]),
  /** The reply's JSON text. */
  body: z.string().min(2),
  /** What the request that generated it was charged, in microunits (a decimal string). */
  cost: z.string().regex(/^\d{1,18}$/),
  /** The source that generated it: a centralized provider's name or a host's id. */
  provider: z.string().min(1).max(200),
  /** The catalog model that answered. */
  model: z.string().min(1).max(300),
  /** When it was kept (ms since the epoch). */
  storedAt: z.number().int().nonnegative(),
});

export type CachedAnswer = z.infer<typeof cachedAnswerSchema>;

/** A kept answer read back, or undefined when the text is not one (a foreign or damaged value). */
export function readCachedAnswer(text: string): CachedAnswer | undefined {
  try {
    const parsed = cachedAnswerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
