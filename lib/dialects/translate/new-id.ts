import { randomBytes } from "node:crypto";

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Base62 so ids look like the vendors' own (`chatcmpl-…`, `msg_…`, `toolu_…`); 24 chars ≈ 142 bits. */
function randomBase62(length: number): string {
  const bytes = randomBytes(length);
  let text = "";
  for (const byte of bytes) text += alphabet[byte % alphabet.length];
  return text;
}

export type VendorIdKind = "chat-completion" | "message" | "openai-tool-call" | "anthropic-tool-call";

const prefixes: Record<VendorIdKind, string> = {
  "chat-completion": "chatcmpl-",
  message: "msg_",
  "openai-tool-call": "call_",
  "anthropic-tool-call": "toolu_",
};

/** Ids in each vendor's own format, because some clients validate the prefix. */
export function newVendorId(kind: VendorIdKind): string {
  return `${prefixes[kind]}${randomBase62(24)}`;
}
