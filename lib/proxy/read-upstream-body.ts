import type { Readable } from "node:stream";
import { GatewayError } from "../errors/gateway-error";
import { NodeBodyResponse } from "../providers/node-body-response";

const timedOut = (options: ReadUpstreamBodyOptions) =>
  new GatewayError(
    "upstream_timeout",
    `upstream timeout: the response body did not arrive within ${options.timeoutMs} ms`,
  );
const tooLarge = (options: ReadUpstreamBodyOptions) =>
  new GatewayError("upstream_error", `upstream error: the response body exceeds ${options.maxBytes} bytes`);

/** The same bounds on undici's node stream, read without a web stream in between. */
function readNodeBody(body: Readable, options: ReadUpstreamBodyOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: unknown) => {
      clearTimeout(timer);
      body.off("data", onData);
      options.abort();
      body.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(timedOut(options)), options.timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > options.maxBytes) fail(tooLarge(options));
      else chunks.push(chunk);
    };
    body.on("data", onData);
    body.once("end", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    body.once("error", (error) => fail(error));
  });
}

export interface ReadUpstreamBodyOptions {
  /** The whole body must arrive within this (UPSTREAM_TIMEOUT_MS, counted from the headers). */
  timeoutMs: number;
  maxBytes: number;
  /** Aborts the upstream request when the body is given up on. */
  abort(): void;
}

/**
 * Reads a non-streamed upstream body with a deadline and a size bound: an upstream that
 * stalls after its headers, or sends an endless body, cannot hold the request (or the
 * process's memory) beyond them.
 */
export async function readUpstreamBody(
  response: Response,
  options: ReadUpstreamBodyOptions,
): Promise<string> {
  if (response instanceof NodeBodyResponse) return readNodeBody(response.nodeBody, options);
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(timedOut(options)), options.timeoutMs);
  });
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), deadline]);
      if (done) break;
      size += value.byteLength;
      if (size > options.maxBytes) throw tooLarge(options);
      chunks.push(value);
    }
  } catch (error) {
    options.abort();
    reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
