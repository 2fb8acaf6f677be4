import { createServer, type IncomingMessage } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { PlainHeaders } from "./plain-headers";

/** What a real node:http server parses from these raw header lines. */
async function parsedFrom(lines: string[]): Promise<IncomingMessage> {
  let received: (incoming: IncomingMessage) => void = () => {};
  const arrived = new Promise<IncomingMessage>((resolve) => {
    received = resolve;
  });
  const server = createServer((incoming, outgoing) => {
    received(incoming);
    outgoing.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const socket = connect(port, "127.0.0.1");
  socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.map((line) => `${line}\r\n`).join("")}\r\n`);
  const incoming = await arrived;
  socket.destroy();
  server.close();
  return incoming;
}

/** The Headers the adapter built before: every raw header appended, the client-ip one skipped. */
function webHeadersOf(incoming: IncomingMessage, own: Record<string, string>): Headers {
  const headers = new Headers();
  for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
    const name = incoming.rawHeaders[index] ?? "";
    if (Object.hasOwn(own, name.toLowerCase())) continue;
    headers.append(name, incoming.rawHeaders[index + 1] ?? "");
  }
  for (const [name, value] of Object.entries(own)) headers.set(name, value);
  return headers;
}

describe("PlainHeaders", () => {
  it("reads what a web Headers of the same request reads, repeated, oddly cased and forged headers included", async () => {
    const incoming = await parsedFrom([
      "Authorization: Bearer first",
      "authorization: Bearer second",
      "X-Pod-Routing-Mode:   marketplace-only  ",
      "X-Forwarded-For: 10.0.0.1, 10.0.0.2",
      "x-forwarded-for: 10.0.0.3",
      "Anthropic-Beta: a",
      "ANTHROPIC-BETA: b",
      "X-Pod-Client-IP: 6.6.6.6",
      "Content-Type: application/json",
      "Set-Cookie: a=1",
      "Set-Cookie: b=2",
      "constructor: not-a-prototype",
    ]);
    const own = { "x-pod-client-ip": "127.0.0.1" };
    const fast = new PlainHeaders(incoming.headersDistinct, own);
    const web = webHeadersOf(incoming, own);
    const names = [
      "authorization",
      "AUTHORIZATION",
      "x-pod-routing-mode",
      "x-forwarded-for",
      "anthropic-beta",
      "x-pod-client-ip",
      "content-type",
      "host",
      "constructor",
      "toString",
      "__proto__",
      "hasOwnProperty",
      "absent",
    ];
    for (const name of names) {
      expect(fast.get(name), name).toBe(web.get(name));
      expect(fast.has(name), name).toBe(web.has(name));
    }
    // The forged client address never reads: only the gateway's own value does.
    expect(fast.get("x-pod-client-ip")).toBe("127.0.0.1");
    expect(fast.getSetCookie()).toEqual(web.getSetCookie());
    expect([...fast.entries()].filter(([name]) => name !== "set-cookie")).toEqual(
      [...web.entries()].filter(([name]) => name !== "set-cookie"),
    );
  });

  it("set, append and delete read back as on a web Headers", async () => {
    const incoming = await parsedFrom(["X-One: 1", "X-Two: 2"]);
    const fast = new PlainHeaders(incoming.headersDistinct, {});
    const web = webHeadersOf(incoming, {});
    for (const headers of [fast, web]) {
      headers.set("X-One", "uno");
      headers.append("x-two", "dos");
      headers.append("X-Three", "tres");
      headers.delete("HOST");
    }
    expect([...fast]).toEqual([...web]);
    const seen: string[] = [];
    fast.forEach((value, name) => {
      seen.push(`${name}=${value}`);
    });
    expect(seen).toEqual(["x-one=uno", "x-three=tres", "x-two=2, dos"]);
  });

  it("reads an answer's record (undici's strings and arrays, a handler's names in any case) and writes it back whole", () => {
    const upstream = new PlainHeaders({
      "content-type": "application/json",
      "set-cookie": ["a=1", "b=2"],
      "x-repeated": ["one", "two"],
      "x-empty": [],
    });
    expect(upstream.get("Content-Type")).toBe("application/json");
    expect(upstream.get("x-repeated")).toBe("one, two");
    expect(upstream.has("x-empty")).toBe(false);
    expect(upstream.getSetCookie()).toEqual(["a=1", "b=2"]);
    const written = PlainHeaders.fromWritten({ "Content-Type": "text/plain", "X-Request-Id": "req_1" });
    written.set("Access-Control-Allow-Origin", "*");
    written.delete("x-request-id");
    const web = new Headers({ "Content-Type": "text/plain", "X-Request-Id": "req_1" });
    web.set("Access-Control-Allow-Origin", "*");
    web.delete("x-request-id");
    expect([...written]).toEqual([...web]);
    expect(written.toRecord()).toEqual({ "content-type": "text/plain", "access-control-allow-origin": "*" });
    expect(upstream.toRecord()).toEqual({
      "content-type": "application/json",
      "x-repeated": "one, two",
      "set-cookie": ["a=1", "b=2"],
    });
  });
});
