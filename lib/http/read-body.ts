import { badRequest, GatewayError } from "../errors/gateway-error";

/** Reads a body up to `limit` bytes; larger bodies are refused before they are buffered whole. */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw new GatewayError("payload_too_large", `request body exceeds ${limit} bytes`);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new GatewayError("payload_too_large", `request body exceeds ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function parseJsonText(text: string): unknown {
  if (text.trim() === "") throw badRequest("invalid JSON: empty body");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`invalid JSON: ${error instanceof Error ? error.message : "unparseable"}`);
  }
}

export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  return parseJsonText(await readBodyText(request, limit));
}
