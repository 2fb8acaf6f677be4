import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { clientIpHeader } from "./client-ip";

/**
 * A lean bridge between node:http and web-standard Request/Response, so server.ts can
 * call the same handlers as the app/ route files without Next's per-request cost.
 */
export function toWebRequest(
  incoming: IncomingMessage,
  response: ServerResponse,
  origin: string,
  trustProxy = false,
): Request {
  const controller = new AbortController();
  // The client went away before we finished: abort whatever the handler is waiting on.
  response.once("close", () => {
    if (!response.writableFinished) controller.abort(new Error("client disconnected"));
  });
  const headers = new Headers();
  for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
    const name = incoming.rawHeaders[index] ?? "";
    if (name.toLowerCase() === clientIpHeader) continue;
    headers.append(name, incoming.rawHeaders[index + 1] ?? "");
  }
  const forwarded = trustProxy ? headers.get("x-forwarded-for")?.split(",")[0]?.trim() : undefined;
  headers.set(clientIpHeader, forwarded || (incoming.socket.remoteAddress ?? "unknown"));
  const method = incoming.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(new URL(incoming.url ?? "/", origin), {
    method,
    headers,
    body: hasBody ? (Readable.toWeb(incoming) as ReadableStream<Uint8Array>) : null,
    signal: controller.signal,
    // Required by undici for streaming request bodies.
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
}

/** Writes a web Response to node:http, streaming the body and stopping if the client leaves. */
export async function sendWebResponse(response: Response, outgoing: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === "set-cookie") return;
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  outgoing.writeHead(response.status, headers);
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
      if (!outgoing.write(value)) await new Promise<void>((resolve) => outgoing.once("drain", resolve));
      if (outgoing.destroyed) break;
    }
  } finally {
    outgoing.off("close", stop);
    outgoing.end();
  }
}
