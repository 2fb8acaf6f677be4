import type { z } from "zod";

/**
 * What a usage reader found in a body or stream frame: nothing, a figure it refuses (out of
 * bounds, negative, fractional, or inconsistent such as more cached than prompt tokens), or a
 * bounded reading. Billing treats an invalid figure as no figure at all and counts instead.
 */
export type UsageReading<T> =
  | { type: "absent" }
  | { type: "invalid"; reason: string }
  | { type: "read"; value: T };

const absent = { type: "absent" } as const;

/** Parses `raw` with `schema`, then `check`s what the schema cannot express; null and undefined are absent. */
export function readWith<S, T>(
  schema: z.ZodType<S>,
  raw: unknown,
  build: (parsed: S) => T | string,
): UsageReading<T> {
  if (raw === undefined || raw === null) return absent;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join(".") ?? "";
    return { type: "invalid", reason: `usage${where ? `.${where}` : ""}: ${issue?.message ?? "invalid"}` };
  }
  const value = build(parsed.data);
  return typeof value === "string" ? { type: "invalid", reason: value } : { type: "read", value };
}

/** The value of a reading, or `fallback` when there is none. */
export function valueOr<T>(reading: UsageReading<T>, fallback: T): T {
  return reading.type === "read" ? reading.value : fallback;
}
