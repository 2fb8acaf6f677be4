import { hash } from "node:crypto";

/** Tokens are credentials: only this hash is ever stored or compared. */
export function hashToken(token: string): string {
  // The one-shot hash skips building a Hash object; it runs on every authenticated request.
  return hash("sha256", token.toLowerCase(), "hex");
}
