// An OpenAI-format upstream that answers at once, for measuring the gateway's own overhead.
import { createServer } from "node:http";

const completion = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_735_689_600,
  model: "gpt-4o-mini",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Hello there" },
      finish_reason: "stop",
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
});
const chunk = (delta: string, finish: string | null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: delta }, finish_reason: finish }] })}\n\n`;
const streamBody = [
  chunk("Hello", null),
  chunk(" there", null),
  chunk("", "stop"),
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [], usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 } })}\n\n`,
  "data: [DONE]\n\n",
];

const server = createServer((request, response) => {
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (part: string) => {
    body += part;
  });
  request.on("end", () => {
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
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`,
  );
});
