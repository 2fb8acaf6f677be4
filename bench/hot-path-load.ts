// One process, for timing a hot-path change from outside (`/usr/bin/time -v`, or several runs of
// each variant alternated): an instant OpenAI-format upstream, a gateway on in-memory PGlite as
// `npm start` runs it (balance leases on), and REQUESTS prepaid chat requests through it, 10 at a
// time, half streamed. Prints the requests per second of the load alone.
//   node --import tsx bench/hot-path-load.ts [REQUESTS=3000]
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, request } from "undici";
import { createAppContext } from "../compose-app";
import { loadEnv } from "../lib/env";
import { startGatewayServer } from "../server";
import { instantCompletion } from "./instant-answers";

const total = Number(process.argv[2] ?? 3000);
const concurrency = 10;
const adminToken = "hot-path-admin";

const completion = JSON.stringify(instantCompletion);
const streamed = [
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: "Hello" }, finish_reason: "stop" }] })}\n\n`,
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [], usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 } })}\n\n`,
  "data: [DONE]\n\n",
].join("");

const upstream = createServer((incoming, answer) => {
  let body = "";
  incoming.setEncoding("utf8");
  incoming.on("data", (part: string) => {
    body += part;
  });
  incoming.on("end", () => {
    const stream = body.includes('"stream":true');
    answer.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json" });
    answer.end(stream ? streamed : completion);
  });
});
await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;

const app = await createAppContext({
  env: loadEnv({
    NODE_ENV: "development",
    LOG_LEVEL: "silent",
    POD_DATA_DIR: "memory://",
    ADMIN_TOKEN: adminToken,
    OPENAI_API_KEY: "sk-bench",
    OPENAI_BASE_URL: upstreamUrl,
    BALANCE_LEASE: "on",
    POD_PAGES: "off",
  }),
  sweeper: false,
});
const gateway = await startGatewayServer({ app, port: 0, host: "127.0.0.1", withNext: false });
const dispatcher = new Agent({ connections: concurrency });

async function call(method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await request(`${gateway.url}${path}`, {
    method: method as "POST",
    dispatcher,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${text.slice(0, 200)}`);
  return text;
}

const { api_token: token } = JSON.parse(await call("POST", "/v1/register", undefined)) as {
  api_token: string;
};
await call(
  "POST",
  "/v1/admin/credits",
  { api_token: token, amount_microunits: "1000000000", reason: "bench" },
  { authorization: `Bearer ${adminToken}` },
);

let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const index = next++;
      await call("POST", `/proxy/${token}/v1/chat/completions`, {
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: `hello ${index}` }],
        ...(index % 2 === 1 ? { stream: true } : {}),
      });
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ requests: total, req_per_s: Math.round(total / seconds) })}\n`);
await dispatcher.close();
await gateway.close();
await new Promise<void>((resolve) => upstream.close(() => resolve()));
