// An OpenAI-format upstream that answers at once, for measuring a gateway's own overhead. A
// request whose body contains "bench-slow" streams 20 chunks 100 ms apart instead (the slow-stream
// mode: many concurrent long streams).
import { createServer, type ServerResponse } from "node:http";
import { instantChunk, instantCompletion } from "./instant-answers";

const completion = JSON.stringify(instantCompletion);
const chunk = instantChunk;
const usageChunk = (completionTokens: number) =>
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [], usage: { prompt_tokens: 12, completion_tokens: completionTokens, total_tokens: 12 + completionTokens } })}\n\n`;
const streamBody = [
  chunk("Hello", null),
  chunk(" there", null),
  chunk("", "stop"),
  usageChunk(2),
  "data: [DONE]\n\n",
];

const slowChunks = 20;
const slowGapMs = 100;

function streamSlowly(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "text/event-stream" });
  let sent = 0;
  const timer = setInterval(() => {
    if (response.destroyed) {
      clearInterval(timer);
      return;
    }
    sent += 1;
    response.write(chunk("tick", null));
    if (sent < slowChunks) return;
    clearInterval(timer);
    response.write(chunk("", "stop"));
    response.write(usageChunk(slowChunks));
    response.end("data: [DONE]\n\n");
  }, slowGapMs);
}

const server = createServer((request, response) => {
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (part: string) => {
    body += part;
  });
  request.on("end", () => {
    if (body.includes("bench-slow")) return streamSlowly(response);
    if (body.includes('"stream":true')) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const part of streamBody) response.write(part);
      response.end();
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(completion);
  });
});
server.keepAliveTimeout = 60_000;
server.maxConnections = 10_000;
server.listen(0, "127.0.0.1", 2048, () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`,
  );
});
