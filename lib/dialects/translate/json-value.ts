/** Small helpers for reading untrusted JSON without `any` (vercel/ai's "never raw JSON.parse" rule). */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses JSON text; returns undefined instead of throwing on malformed input. */
export function safeParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Tool arguments arrive as JSON text from OpenAI but Anthropic needs an object. Models
 * occasionally emit invalid or empty JSON; an empty object keeps the request valid.
 */
export function parseArgumentsObject(text: string): Record<string, unknown> {
  const parsed = safeParseJson(text);
  return isRecord(parsed) ? parsed : {};
}
