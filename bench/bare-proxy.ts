// The floor any Node gateway pays: node:http in, undici's dispatcher API out, bodies piped
// through with no parsing, no auth and no billing. Usage: bare-proxy <upstream origin>.
import { createServer } from "node:http";
import { pipeline } from "node:stream/promises";
import { Pool } from "undici";

const upstream = process.argv[2];
if (!upstream) throw new Error("usage: bare-proxy <upstream origin>");
const pool = new Pool(upstream, { connections: 256, pipelining: 1 });

const server = createServer((incoming, outgoing) => {
  pool
    .request({
      method: "POST",
      path: incoming.url ?? "/",
      headers: { "content-type": incoming.headers["content-type"] ?? "application/json" },
      body: incoming,
    })
    .then(async (upstreamResponse) => {
      outgoing.writeHead(upstreamResponse.statusCode, {
        "content-type": String(upstreamResponse.headers["content-type"] ?? "application/json"),
      });
      await pipeline(upstreamResponse.body, outgoing);
    })
    .catch(() => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", 2048, () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`,
  );
});
