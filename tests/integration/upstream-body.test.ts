// The upstream call's own body (lib/providers/upstream-body.ts) against a real node:http server
// behaving badly: an endless body nobody reads, a body past the size bound, a reader that stops
// early, an abort before and after the headers, and UTF-8 split across chunks. Each is through
// undici on real sockets, the way dispatchHttp reaches an upstream.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { dispatchHttp } from "../../lib/providers/http-dispatch";
import { NodeBodyResponse } from "../../lib/providers/node-body-response";
import { readUpstreamBody } from "../../lib/proxy/read-upstream-body";

type Behaviour = (request: IncomingMessage, response: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let behave: Behaviour = (_request, response) => response.end("{}");
/** Whether the server's last response was cut off (its connection closed before it finished). */
let lastCutOff: Promise<boolean> = Promise.resolve(false);

beforeAll(async () => {
  server = createServer((request, response) => {
    lastCutOff = new Promise((resolve) => {
      response.once("close", () => resolve(!response.writableFinished));
    });
    request.resume();
    request.once("end", () => behave(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterEach(() => {
  server.closeAllConnections();
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function call(signal: AbortSignal = new AbortController().signal): Promise<Response> {
  return dispatchHttp({ dialect: "openai", baseUrl, apiKey: "sk-test" }, '{"model":"m"}', {
    signal,
    forwardHeaders: {},
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `chunk` for as long as the socket takes it, for `ms`; resolves with the bytes written. */
function writeWhileTaken(response: ServerResponse, chunk: Buffer, ms: number): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    const stopAt = Date.now() + ms;
    const pump = () => {
      while (Date.now() < stopAt && !response.destroyed) {
        written += chunk.length;
        if (!response.write(chunk)) {
          response.once("drain", pump);
          return;
        }
      }
    };
    setTimeout(() => resolve(written), ms);
    pump();
  });
}

describe("an upstream answer's body", () => {
  it("that never ends, unread, stops being read: the upstream's writes back up instead of filling memory", async () => {
    let written: Promise<number> = Promise.resolve(0);
    behave = (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      written = writeWhileTaken(response, Buffer.alloc(16 * 1024, 97), 1_000);
    };
    const response = await call();
    expect(response).toBeInstanceOf(NodeBodyResponse);
    const total = await written;
    // Unpaused, loopback takes gigabytes a second; paused, the socket buffers and the 64 KB queue.
    expect(total).toBeLessThan(16 * 1024 * 1024);
    (response as NodeBodyResponse).source.cancel(new Error("done"));
    expect(await lastCutOff).toBe(true);
  });

  it("past the size bound fails the read with the bound's error and aborts the upstream", async () => {
    behave = (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      void writeWhileTaken(response, Buffer.alloc(64 * 1024, 97), 2_000);
    };
    const response = await call();
    let aborted = 0;
    await expect(
      readUpstreamBody(response, { timeoutMs: 5_000, maxBytes: 256 * 1024, abort: () => (aborted += 1) }),
    ).rejects.toThrow(/exceeds 262144 bytes/);
    expect(aborted).toBe(1);
    expect(await lastCutOff).toBe(true);
  });

  it("that stalls after its headers fails at the deadline and aborts the upstream", async () => {
    behave = (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"partial":');
    };
    const response = await call();
    const started = Date.now();
    await expect(
      readUpstreamBody(response, { timeoutMs: 300, maxBytes: 1024, abort: () => undefined }),
    ).rejects.toThrow(/did not arrive within 300 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await lastCutOff).toBe(true);
  });

  it("read as a stream and left early aborts the upstream", async () => {
    behave = (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      void writeWhileTaken(response, Buffer.from("data: {}\n\n"), 2_000);
    };
    const response = (await call()) as NodeBodyResponse;
    let chunks = 0;
    for await (const _chunk of response.source) {
      chunks += 1;
      if (chunks === 3) break;
    }
    expect(chunks).toBe(3);
    expect(await lastCutOff).toBe(true);
  });

  it("aborted before its headers rejects with the reason; after them, the stream throws it", async () => {
    behave = (_request, response) => {
      setTimeout(() => {
        if (response.destroyed) return;
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write("data: 1\n\n");
      }, 400);
    };
    const before = new AbortController();
    const pending = call(before.signal);
    setTimeout(() => before.abort(new Error("caller left early")), 50);
    await expect(pending).rejects.toThrow("caller left early");
    expect(await lastCutOff).toBe(true);

    const after = new AbortController();
    const response = (await call(after.signal)) as NodeBodyResponse;
    const iterator = response.source[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    after.abort(new Error("caller left mid-stream"));
    await expect(iterator.next()).rejects.toThrow("caller left mid-stream");
    expect(await lastCutOff).toBe(true);
  });

  it("keeps every byte, UTF-8 split across chunks included, read whole or as a stream", async () => {
    const text = `{"content":"${"héllo wörld ✓ 🚀 ".repeat(500)}"}`;
    const bytes = Buffer.from(text);
    behave = async (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      // Odd-sized pieces, so multi-byte characters fall across chunk edges.
      for (let at = 0; at < bytes.length; at += 997) {
        response.write(bytes.subarray(at, at + 997));
        await sleep(1);
      }
      response.end();
    };
    const whole = await call();
    expect(
      await readUpstreamBody(whole, { timeoutMs: 5_000, maxBytes: 1 << 20, abort: () => undefined }),
    ).toBe(text);
    const streamed = (await call()) as NodeBodyResponse;
    const parts: Buffer[] = [];
    for await (const chunk of streamed.source) parts.push(Buffer.from(chunk));
    expect(Buffer.concat(parts).toString("utf8")).toBe(text);
    expect(await lastCutOff).toBe(false);
  });
});
