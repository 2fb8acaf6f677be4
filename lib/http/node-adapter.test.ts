import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { sendWebResponse } from "./node-adapter";
import { type ChunkSource, StreamedResponse } from "./streamed-response";

const encoder = new TextEncoder();

describe("a streamed answer", () => {
  it("hands its first chunk to the socket before the rest of an already-complete stream is worked through", async () => {
    let corked = -1;
    let queued = -1;
    let client = "";
    const server = createServer((_incoming, outgoing) => {
      async function* chunks(): AsyncGenerator<Uint8Array> {
        yield encoder.encode("data: first\n\n");
        // What follows in microtasks only, as a relay of a stream that is all there does: the
        // settlement and the receipt run here before the next chunk.
        for (let tick = 0; tick < 1_000; tick += 1) await Promise.resolve();
        corked = outgoing.socket?.writableCorked ?? -1;
        queued = outgoing.socket?.writableLength ?? -1;
        yield encoder.encode("data: second\n\n");
      }
      const iterator = chunks();
      const source: ChunkSource = {
        [Symbol.asyncIterator]: () => iterator,
        cancel: () => undefined,
        onCutOff: () => undefined,
      };
      void sendWebResponse(
        new StreamedResponse(source, { status: 200, headers: { "content-type": "text/event-stream" } }),
        outgoing,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      request({ host: "127.0.0.1", port, path: "/", agent: false }, (answer) => {
        answer.setEncoding("utf8");
        answer.on("data", (part: string) => {
          client += part;
        });
        answer.once("end", resolve);
      })
        .once("error", reject)
        .end();
    });
    server.close();
    expect(client).toBe("data: first\n\ndata: second\n\n");
    // Corked until the next tick, the socket would still hold the first chunk in its buffer.
    expect({ corked, queued }).toEqual({ corked: 0, queued: 0 });
  });
});
