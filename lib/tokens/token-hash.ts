import { createHash } from "node:crypto";

/** Tokens are credentials: only this hash is ever stored or compared. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token.toLowerCase()).digest("hex");
}
