import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { LightAbort } from "../light-abort";
import { PlainHeaders } from "../plain-headers";
import type { ApiRequest } from "./api-request";
import { BufferedRequest, readDeclaredBody } from "./buffered-request";
import { BufferedResponse } from "./buffered-response";
import { clientIpHeader } from "./client-ip";
import { type ChunkSource, StreamedResponse } from "./streamed-response";

/** Resolves when the socket can take more, or is gone. */
function writable(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off("drain", done);
      outgoing.off("close", done);
      resolve();
    };
    outgoing.once("drain", done);
    outgoing.once("close", done);
  });
}

/** Streams a ChunkSource to node:http with backpressure; a client that leaves stops the source. */
async function writeChunks(source: ChunkSource, outgoing: ServerResponse): Promise<void> {
  const iterator = source[Symbol.asyncIterator]();
  const onClose = () => {
    if (!outgoing.writableFinished) source.cancel();
  };
  outgoing.once("close", onClose);
  source.onCutOff(() => outgoing.destroy());
  try {
    let first = true;
    for (;;) {
      const { done, value } = await iterator.next();
      if (done || outgoing.destroyed) break;
      const more = outgoing.write(value);
      // node:http corks the socket on a write and uncorks it on the next tick, which waits for
      // every microtask queued meanwhile: with a stream already all there, the whole relay and its
      // settlement ran before the first byte left. The first chunk goes at once; later ones keep
      // node's batching.
      if (first) {
        first = false;
        outgoing.uncork();
      }
      if (!more) await writable(outgoing);
      if (outgoing.destroyed) break;
    }
  } finally {
    outgoing.off("close", onClose);
    await iterator.return?.();
    outgoing.end();
  }
}

/**
 * A lean bridge between node:http and the API's request and web Response, so server.ts can
 * call the same handlers as the app/ route files without Next's per-request cost.
 */
export async function toApiRequest(
  incoming: IncomingMessage,
  response: ServerResponse,
  origin: string,
  options: {
    trustProxy: boolean;
    bufferLimit: number;
    /** The target's path as checkRequestTarget passed it. */
    pathname?: string;
  },
): Promise<ApiRequest> {
  const abort = new LightAbort();
  // The client went away before we finished: abort whatever the handler is waiting on.
  response.once("close", () => {
    if (!response.writableFinished) abort.abort(new Error("client disconnected"));
  });
  // A client's own copy of the client-ip header is dropped: only this adapter sets it.
  const forwarded = options.trustProxy
    ? (incoming.headersDistinct["x-forwarded-for"]?.[0]?.split(",")[0]?.trim() ?? undefined)
    : undefined;
  const headers = new PlainHeaders(incoming.headersDistinct, {
    [clientIpHeader]: forwarded || (incoming.socket.remoteAddress ?? "unknown"),
  });
  const method = incoming.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  const declared = Number(incoming.headers["content-length"] ?? Number.NaN);
  // A body of known, acceptable length (what SDKs send) is read here whole, without web streams.
  // Its target passed checkRequestTarget (a canonical path from "/"): the URL is the origin and
  // the target as sent, parsed only by a handler that reads its query.
  if (hasBody && Number.isSafeInteger(declared) && declared <= options.bufferLimit && options.pathname)
    return new BufferedRequest(
      `${origin}${incoming.url ?? "/"}`,
      { method, headers, abort, pathname: options.pathname },
      await readDeclaredBody(incoming, declared),
    );
  const url = new URL(incoming.url ?? "/", origin);
  return new Request(url, {
    method,
    headers,
    body: hasBody ? (Readable.toWeb(incoming) as ReadableStream<Uint8Array>) : null,
    signal: abort.signal,
    // Required by undici for streaming request bodies.
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
}

function webHeaders(response: Response): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === "set-cookie") return;
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  return headers;
}

/** Writes a web Response to node:http, streaming the body and stopping if the client leaves. */
export async function sendWebResponse(response: Response, outgoing: ServerResponse): Promise<void> {
  const headers =
    response.headers instanceof PlainHeaders ? response.headers.toRecord() : webHeaders(response);
  if (response instanceof BufferedResponse) {
    headers["content-length"] = String(Buffer.byteLength(response.bufferedText));
    outgoing.writeHead(response.status, headers);
    outgoing.end(response.bufferedText);
    return;
  }
  outgoing.writeHead(response.status, headers);
  if (response instanceof StreamedResponse) {
    await writeChunks(response.source, outgoing);
    return;
  }
  if (!response.body) {
    outgoing.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = () => {
    reader.cancel().catch(() => undefined);
  };
  outgoing.once("close", stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!outgoing.write(value)) await writable(outgoing);
      if (outgoing.destroyed) break;
    }
  } finally {
    outgoing.off("close", stop);
    outgoing.end();
  }
}
