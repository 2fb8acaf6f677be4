import { createHash } from "node:crypto";
import type { CallerDialect } from "../dialects/dialect";

/**
 * The fields of a caller's body that change how the answer is framed, not what it says: a
 * streamed and a whole request share an entry (the hit is rendered either way), and the cache's
 * own field is never part of what it caches.
 */
const framingFields = new Set(["stream", "stream_options", "cache"]);

/** The request headers that choose a source (and so may change the answer), or its upstream behaviour. */
const answerHeaders = [
  "x-pod-providers",
  "x-pod-routing-mode",
  "x-pod-max-price-input",
  "x-pod-max-price-output",
  "x-pod-max-price-request",
  "anthropic-version",
  "anthropic-beta",
] as const;

/** JSON with every object's keys sorted, so two bodies that mean the same are the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export interface CacheKeyInput {
  /** The account whose entry this is; undefined when the operator shares entries across accounts. */
  accountId: bigint | undefined;
  dialect: CallerDialect;
  /** The caller's body (a stored conversation expanded in front of a Responses turn). */
  body: Record<string, unknown>;
  headers: Headers;
}

/**
 * The entry's name: a SHA-256 over the account (unless shared), the wire format, every body
 * field but the framing ones (model, messages, tools, temperature, seed, limits, the routing
 * preferences...) and the headers that pick a source. Exact match: one byte of difference in
 * anything that may change the answer is another entry.
 */
export function cacheKey(input: CacheKeyInput): string {
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input.body)) if (!framingFields.has(field)) body[field] = value;
  const headers: Record<string, string> = {};
  for (const name of answerHeaders) {
    const value = input.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const scope = input.accountId === undefined ? "shared" : `account:${input.accountId}`;
  return createHash("sha256")
    .update(canonicalJson({ v: 1, scope, dialect: input.dialect, body, headers }))
    .digest("hex");
}
