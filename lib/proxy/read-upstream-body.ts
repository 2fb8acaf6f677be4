import { GatewayError } from "../errors/gateway-error";
import { NodeBodyResponse } from "../providers/node-body-response";

const timedOut = (options: ReadUpstreamBodyOptions) =>
  new GatewayError(
    "upstream_timeout",
    `upstream timeout: the response body did not arrive within ${options.timeoutMs} ms`,
  );
const tooLarge = (options: ReadUpstreamBodyOptions) =>
  new GatewayError("upstream_error", `upstream error: the response body exceeds ${options.maxBytes} bytes`);

/** The same bounds on undici's chunks, read with no stream in between. */
async function readSource(response: NodeBodyResponse, options: ReadUpstreamBodyOptions): Promise<string> {
  const { source } = response;
  const bounds = { maxBytes: options.maxBytes, tooLarge: () => tooLarge(options) };
  // A whole answer has usually come in with its headers: no deadline to set.
  const timer = source.complete
    ? undefined
    : setTimeout(() => source.cancel(timedOut(options)), options.timeoutMs);
  try {
    return await source.text(bounds);
  } catch (error) {
    options.abort();
    throw error;
  } finally {
    clearTimeout(timer);
  }
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
  if (response instanceof NodeBodyResponse) return readSource(response, options);
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
