import { createHash } from "node:crypto";

/**
 * The request binding of a quote: sha256 hex of `METHOD\nPATH\nBODY`, the form the
 * reference service publishes as `body_hash`. The paid retry must hash to the same value,
 * so a payment made for one request can never buy a different (dearer) one.
 */
export function requestBodyHash(method: string, path: string, body: string | Uint8Array): string {
  // Hashing is streamed: a text body hashes exactly as the one concatenated string did.
  return createHash("sha256").update(`${method.toUpperCase()}\n${path}\n`, "utf8").update(body).digest("hex");
}
