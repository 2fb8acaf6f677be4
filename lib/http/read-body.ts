import type { z } from "zod";
import { badRequest, GatewayError } from "../errors/gateway-error";
import type { ApiRequest } from "./api-request";
import { BufferedRequest } from "./buffered-request";

/** Reads a body up to `limit` bytes; larger bodies are refused before they are buffered whole. */
export async function readBodyText(request: ApiRequest, limit: number): Promise<string> {
  return (await readBodyBytes(request, limit)).toString("utf8");
}

/** The body's bytes (a multipart upload), up to `limit`, refused as readBodyText refuses. */
export async function readBodyBytes(request: ApiRequest, limit: number): Promise<Buffer> {
  const tooLarge = () => new GatewayError("payload_too_large", `request body exceeds ${limit} bytes`);
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge();
  if (request instanceof BufferedRequest) {
    if (request.bufferedBody.length > limit) throw tooLarge();
    return request.bufferedBody;
  }
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Deeper than any real request; deeper values overflow the stack of JSON.stringify and schema checks. */
const maxJsonDepth = 64;

export function parseJsonText(text: string): unknown {
  if (text.trim() === "") throw badRequest("invalid JSON: empty body");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(`invalid JSON: ${error instanceof Error ? error.message : "unparseable"}`);
  }
  if (jsonDepthExceeds(text, maxJsonDepth))
    throw badRequest(`invalid JSON: nested deeper than ${maxJsonDepth} levels`);
  return value;
}

/** Counts bracket depth outside strings: linear and without recursion, whatever the input. */
function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92)
        index += 1; // backslash: skip the escaped character
      else if (code === 34) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 123 || code === 91) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === 125 || code === 93) depth -= 1;
  }
  return false;
}

/**
 * A JSON body whose strings are stored (names, labels, reasons, keys): NUL and lone
 * surrogates are refused here, since Postgres text cannot hold them and would fail the write.
 */
export async function readJsonBody(request: ApiRequest, limit: number): Promise<unknown> {
  const value = parseJsonText(await readBodyText(request, limit));
  const path = firstUnstorableString(value);
  if (path !== undefined)
    throw badRequest(`${path || "body"} contains a NUL character or an unpaired surrogate`, {
      ...(path ? { param: path } : {}),
    });
  return value;
}

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path of the first string (or key) Postgres cannot store, if any. */
function firstUnstorableString(root: unknown): string | undefined {
  const bad = (text: string) => text.includes("\u0000") || loneSurrogate.test(text);
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: "" }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path } = item;
    if (typeof value === "string") {
      if (bad(value)) return path;
    } else if (Array.isArray(value)) {
      value.forEach((child, index) => {
        stack.push({ value: child, path: `${path}[${index}]` });
      });
    } else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        const childPath = path ? `${path}.${key}` : key;
        if (bad(key)) return childPath;
        stack.push({ value: child, path: childPath });
      }
    }
  }
  return undefined;
}

/** Reads a JSON body and validates it; every problem is listed in one 400. */
export async function readValidatedJson<T extends z.ZodType>(
  request: ApiRequest,
  schema: T,
  limit: number,
): Promise<z.infer<T>> {
  const parsed = schema.safeParse(await readJsonBody(request, limit));
  if (!parsed.success) {
    throw badRequest(
      parsed.error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; "),
    );
  }
  return parsed.data;
}
