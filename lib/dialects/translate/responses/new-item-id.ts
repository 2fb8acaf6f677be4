import { randomBytes } from "node:crypto";

/** The prefixes OpenAI uses for Responses objects and output items. */
type ResponsesIdKind = "resp" | "msg" | "fc" | "ctc" | "rs" | "ig";

/**
 * Ids in OpenAI's own shape (`resp_…`, `msg_…`, `fc_…`), because clients such as Codex
 * keep them in their history and some validate the prefix. 24 random bytes, hex.
 */
export function newItemId(kind: ResponsesIdKind): string {
  return `${kind}_${randomBytes(24).toString("hex")}`;
}

/**
 * A response id as OpenAI makes them: its creation second (8 hex digits) then 20 random bytes,
 * 48 hex digits in all. The second lets another replica tell an id that may still be being
 * stored (recent) from one that never will be (old), without a lookup.
 */
export function newResponseId(createdAtSeconds: number): string {
  const second = (createdAtSeconds >>> 0).toString(16).padStart(8, "0");
  return `resp_${second}${randomBytes(20).toString("hex")}`;
}

/** The creation second a response id carries (see newResponseId), or undefined when it has none. */
export function responseIdSecond(id: string): number | undefined {
  const match = /^resp_([0-9a-f]{8})[0-9a-f]{40}$/.exec(id);
  return match?.[1] === undefined ? undefined : Number.parseInt(match[1], 16);
}
