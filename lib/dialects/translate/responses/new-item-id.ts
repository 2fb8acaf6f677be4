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
