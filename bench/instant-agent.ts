// A provider agent that answers every job at once, for the cross-replica rows of the bench: the
// marketplace's own overhead (WebSocket, and between replicas Redis) with no backend behind it.
// Usage: tsx bench/instant-agent.ts <gateway origin> <enrollment code>; prints {"ready":true}
// once its offer is accepted.
import { generateKeyPairSync, sign } from "node:crypto";
import { type AgentMessage, parseGatewayFrame } from "@pod-gateway/contracts/agent-protocol";
import WebSocket from "ws";
import { instantChunk, instantCompletion } from "./instant-answers";

const [gateway, enrollmentCode] = process.argv.slice(2);
if (!gateway || !enrollmentCode)
  throw new Error("usage: instant-agent.ts <gateway origin> <enrollment code>");

const { publicKey, privateKey } = generateKeyPairSync("ed25519");
const pubkey = Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url").toString("base64");

const completion = Buffer.from(JSON.stringify(instantCompletion)).toString("base64");
const chunk = instantChunk;
const stream = Buffer.from(
  [
    chunk("Hello", null),
    chunk(" there", null),
    chunk("", "stop"),
    `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [], usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 } })}\n\n`,
    "data: [DONE]\n\n",
  ].join(""),
).toString("base64");

const ws = new WebSocket(`${gateway.replace(/^http/, "ws")}/provider/connect`);
const send = (message: AgentMessage) => ws.send(JSON.stringify(message));
ws.on("message", (data) => {
  const parsed = parseGatewayFrame(data.toString());
  if (!parsed.ok) return;
  const message = parsed.message;
  switch (message.type) {
    case "auth_challenge":
      send({
        type: "auth_response",
        pubkey,
        signature: sign(null, Buffer.from(message.nonce, "base64"), privateKey).toString("base64"),
        agent_version: "bench",
        enrollment_code: enrollmentCode,
      });
      return;
    case "auth_ok":
      send({
        type: "capabilities",
        models: [
          { model_id: "gpt-4o-mini", input_per_1m: 100_000, output_per_1m: 400_000, max_concurrent: 256 },
        ],
        limits: { max_concurrent_total: 256 },
      });
      send({ type: "heartbeat", queue_depth: 0, tokens_per_sec_p50: 0 });
      setInterval(() => send({ type: "heartbeat", queue_depth: 0, tokens_per_sec_p50: 0 }), 10_000).unref();
      return;
    case "capabilities_ack":
      process.stdout.write(`${JSON.stringify({ ready: message.accepted.includes("gpt-4o-mini") })}\n`);
      return;
    case "job": {
      const streamed = message.request.stream === true;
      send({
        type: "job_chunk",
        job_id: message.job_id,
        data: streamed ? stream : completion,
        status: 200,
        content_type: streamed ? "text/event-stream" : "application/json",
      });
      send({ type: "job_done", job_id: message.job_id });
      return;
    }
    default:
      return;
  }
});
ws.on("close", () => process.exit(0));
