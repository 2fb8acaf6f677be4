/**
 * x402 headers carry base64 of a JSON document. Encoding is standard base64, which the
 * official decoders require; decoding also accepts base64url and missing padding, since
 * hand-written clients send both and nothing is gained by refusing them.
 */

export function encodeJsonHeader(value: unknown): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64");
}

const base64Pattern = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** The decoded JSON, or undefined when the header is not base64 of a JSON value. */
export function decodeJsonHeader(header: string): unknown {
  const text = header.trim();
  if (!base64Pattern.test(text)) return undefined;
  const json = Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("utf8");
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}
