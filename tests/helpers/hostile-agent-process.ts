/**
 * A hostile provider agent, run as its own process (`node --import tsx` this file): a real
 * WebSocket client written from the shared protocol module (@pod-gateway/contracts), that
 * authenticates like an honest agent and then answers every job with one attack. The frames
 * it may legally send are typed `AgentMessage`; the attacks that break the protocol start from
 * a typed frame and forge one field, so each lie is visible as such.
 *
 * Environment: GATEWAY_URL, ENROLLMENT_CODE, ATTACK (see `attacks`), MODEL, INPUT_PER_1M,
 * OUTPUT_PER_1M, CHEAT_AFTER (the `model-*` attacks: honest for this many jobs first), CHEAT_RATE
 * (the `model-*` attacks: the share of jobs answered from the smaller
 * model). The `anthropic-*` attacks are the `model-*` ones for a backend in Anthropic's Messages
 * format: the model is offered with `format: "anthropic"`, jobs arrive in that format and are
 * answered in its wire format (a message, or its event stream). It prints `ready` once the
 * gateway accepted its model.
 */
import { generateKeyPairSync, sign } from "node:crypto";
import { type AgentMessage, type JobMessage, parseGatewayFrame } from "@pod-gateway/contracts/agent-protocol";
import WebSocket from "ws";
import { answerFrom, referenceModel, smallerModel } from "./fake-model-text";
import { openAiDelta, openAiUsage } from "./scripted-agent";

const attacks = [
  "overclaim-body",
  "overclaim-done",
  "count-2^31",
  "count-1e15",
  "count-negative",
  "count-fractional",
  "status-101",
  "crlf-header",
  "after-done",
  "other-job-id",
  "ignore-max-tokens",
  "silent",
  "stall",
  "cut",
  "model-honest",
  "model-smaller",
  "model-classifier",
  "anthropic-honest",
  "anthropic-smaller",
  "honest",
] as const;
type Attack = (typeof attacks)[number];

const env = process.env;
const attack = (env.ATTACK ?? "honest") as Attack;
if (!attacks.includes(attack)) throw new Error(`unknown attack ${attack}`);
const anthropicFormat = attack.startsWith("anthropic-");

const { publicKey, privateKey } = generateKeyPairSync("ed25519");
const pubkey = Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url").toString("base64");

const ws = new WebSocket(`${String(env.GATEWAY_URL).replace(/^http/, "ws")}/provider/connect`);
const send = (message: AgentMessage) => ws.send(JSON.stringify(message));
/** A frame the protocol forbids: a typed frame with one field replaced by the lie. */
const forge = (message: AgentMessage, lie: Record<string, unknown>) =>
  ws.send(JSON.stringify({ ...message, ...lie }));
const b64 = (text: string) => Buffer.from(text).toString("base64");

/** Five words of answer, then the usage chunk claiming `completion`, then [DONE]. */
function answer(completion: number): string {
  return `${openAiDelta("The")}${openAiDelta(" sea")}${openAiDelta(" is")}${openAiDelta(" calm")}${openAiDelta(" today")}${openAiUsage(12, completion)}data: [DONE]\n\n`;
}

let jobsServed = 0;

/**
 * What a classifier reads of a job to tell a canary from a real caller's: every field of the
 * frame and of the request, in order, the turns and their roles, the sampling settings and the
 * output limit (the texts left out: they are what differs between any two jobs).
 */
function signature(job: JobMessage): string {
  const request = job.request as Record<string, unknown>;
  const messages = Array.isArray(request.messages)
    ? (request.messages as Array<Record<string, unknown>>)
    : [];
  return JSON.stringify({
    frame: Object.keys(job).filter((key) => key !== "traceparent"),
    traced: job.traceparent !== undefined,
    format: job.format,
    deadline: job.deadline_ms,
    fields: Object.keys(request),
    turns: messages.map((message) => [Object.keys(message), message.role, typeof message.content]),
    settings: Object.fromEntries(
      Object.entries(request).filter(([key]) => key !== "messages" && key !== "system"),
    ),
  });
}

/** The old templated canaries' texts (lib/canaries/canary-prompts.ts before issue 31), as a classifier lists them. */
const templates = [
  /^Repeat exactly this phrase and nothing else:/,
  /^Write two sentences about /,
  /^Describe .+ in one short paragraph\.$/,
  /^In three sentences, explain .+ to a child\.$/,
  /^Give a short, vivid description of /,
];
const seenSignatures = new Set<string>();
const seenTexts = new Set<string>();
let suspected = 0;

/**
 * `model-classifier`'s guess: a job is a canary when it has the old templated shape (one user
 * turn, temperature 0, 64 tokens), a templated text, a last user turn it was sent before (a canary
 * replaying a real prompt), a shape (frame, fields, their order, turns, settings) it has not seen
 * in an earlier job (a canary built by the gateway rather than by a caller's client), or a system
 * prompt it has not seen before (applications send theirs again and again).
 */
function looksLikeCanary(job: JobMessage): string | undefined {
  const request = job.request as { messages?: unknown; temperature?: unknown; max_tokens?: unknown };
  const messages = Array.isArray(request.messages)
    ? (request.messages as Array<{ role?: unknown; content?: unknown }>)
    : [];
  const texts = messages.map((message) => (typeof message.content === "string" ? message.content : ""));
  const key = signature(job);
  const firstSeen = !seenSignatures.has(key);
  seenSignatures.add(key);
  // An application sends its system prompt again and again; a gateway inventing canaries might not.
  const system = messages[0]?.role === "system" ? texts[0] : undefined;
  const newSystem = system !== undefined && !seenTexts.has(`system:${system}`);
  if (system !== undefined) seenTexts.add(`system:${system}`);
  // A user rarely sends the same last turn twice; a canary replaying real prompts would.
  const last = texts.at(-1) ?? "";
  const replayed = last !== "" && seenTexts.has(last);
  seenTexts.add(last);
  if (messages.length === 1 && request.temperature === 0 && request.max_tokens === 64)
    return "template shape";
  if (texts.some((text) => templates.some((template) => template.test(text)))) return "template text";
  if (replayed) return "replayed text";
  if (firstSeen) return "unseen shape";
  if (newSystem) return "unseen system prompt";
  return undefined;
}

/**
 * An answer from the simulation's fake model, or on CHEAT_RATE of jobs from its smaller sibling;
 * `model-classifier` answers honestly whatever it takes for a canary (looksLikeCanary) and
 * cheats on the rest. Every job's frame is printed (`frame <json>`), with the guess, for tests.
 */
function modelAnswer(job: JobMessage): AgentMessage[] {
  const request = job.request as {
    messages?: unknown;
    temperature?: number;
    max_tokens?: number;
    stream?: boolean;
  };
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const guess = attack === "model-classifier" ? looksLikeCanary(job) : undefined;
  if (guess) suspected += 1;
  console.log(`frame ${JSON.stringify({ guess: guess ?? null, suspected, frame: job })}`);
  jobsServed += 1;
  const cheat =
    attack !== "model-honest" &&
    attack !== "anthropic-honest" &&
    guess === undefined &&
    jobsServed > Number(env.CHEAT_AFTER ?? 0) &&
    Math.random() < Number(env.CHEAT_RATE ?? 1);
  const answer = answerFrom(
    cheat ? smallerModel : referenceModel,
    { system: (request as { system?: unknown }).system, messages },
    request.temperature ?? 1,
    // A word of the fake model is up to 3 tokens of the gateway's tokenizer: stay within the limit.
    Math.floor((request.max_tokens ?? 768) / 3),
    jobsServed * 7919 + process.pid,
  );
  const id = job.job_id;
  if (anthropicFormat) return anthropicAnswer(job, answer);
  const body = request.stream
    ? // No usage claimed: the gateway counts (the fake model's words are no real tokenizer's).
      `${openAiDelta(answer.text)}data: [DONE]\n\n`
    : JSON.stringify({
        id: "chatcmpl-model",
        object: "chat.completion",
        created: 1,
        model: job.model_id,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: answer.text },
            finish_reason: answer.stopped ? "stop" : "length",
          },
        ],
      });
  return [
    {
      type: "job_chunk",
      job_id: id,
      data: b64(body),
      status: 200,
      content_type: request.stream ? "text/event-stream" : "application/json",
    },
    { type: "job_done", job_id: id },
  ];
}

/**
 * The answer as Anthropic's Messages API writes it: one message, or its event stream. The usage
 * claimed is a floor of what the gateway counts (a word of the fake model is at least a token),
 * so the meter finds nothing to hold against an honest host.
 */
function anthropicAnswer(
  job: JobMessage,
  answer: { text: string; tokens: number; stopped: boolean },
): AgentMessage[] {
  const request = job.request as { stream?: boolean };
  const id = `msg_${job.job_id.replaceAll("-", "").slice(0, 24)}`;
  const usage = { input_tokens: 1, output_tokens: answer.tokens };
  const stopReason = answer.stopped ? "end_turn" : "max_tokens";
  const event = (name: string, data: Record<string, unknown>) =>
    `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  const body = request.stream
    ? [
        event("message_start", {
          message: {
            id,
            type: "message",
            role: "assistant",
            model: job.model_id,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        }),
        event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
        event("ping", {}),
        ...answer.text
          .split(/(?= )/)
          .map((piece) =>
            event("content_block_delta", { index: 0, delta: { type: "text_delta", text: piece } }),
          ),
        event("content_block_stop", { index: 0 }),
        event("message_delta", {
          delta: { stop_reason: stopReason, stop_sequence: null },
          usage: { output_tokens: answer.tokens },
        }),
        event("message_stop", {}),
      ].join("")
    : JSON.stringify({
        id,
        type: "message",
        role: "assistant",
        model: job.model_id,
        content: [{ type: "text", text: answer.text }],
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      });
  return [
    {
      type: "job_chunk",
      job_id: job.job_id,
      data: b64(body),
      status: 200,
      content_type: request.stream ? "text/event-stream" : "application/json",
    },
    { type: "job_done", job_id: job.job_id },
  ];
}

async function serve(job: JobMessage): Promise<void> {
  const id = job.job_id;
  const first: AgentMessage = {
    type: "job_chunk",
    job_id: id,
    data: "",
    status: 200,
    content_type: "text/event-stream",
  };
  switch (attack) {
    case "model-honest":
    case "model-smaller":
    case "model-classifier":
    case "anthropic-honest":
    case "anthropic-smaller":
      for (const message of modelAnswer(job)) send(message);
      return;
    case "honest":
      send({ ...first, data: b64(answer(5)) });
      send({ type: "job_done", job_id: id, tokens: { input: 12, output: 5 } });
      return;
    case "overclaim-body":
      send({ ...first, data: b64(answer(9_000_000)) });
      send({ type: "job_done", job_id: id });
      return;
    case "overclaim-done":
      send({ ...first, data: b64(answer(5)) });
      send({ type: "job_done", job_id: id, tokens: { input: 9_000_000, output: 9_000_000 } });
      return;
    case "count-2^31":
    case "count-1e15":
    case "count-negative":
    case "count-fractional": {
      const lie = {
        "count-2^31": 2 ** 31,
        "count-1e15": 1e15,
        "count-negative": -5,
        "count-fractional": 2.5,
      }[attack];
      // The lie in the relayed body and in job_done both.
      send({ ...first, data: b64(answer(5).replace('"completion_tokens":5', `"completion_tokens":${lie}`)) });
      forge({ type: "job_done", job_id: id }, { tokens: { output: lie } });
      return;
    }
    case "status-101":
      forge({ ...first, data: b64(answer(5)) }, { status: 101 });
      return;
    case "crlf-header":
      forge({ ...first, data: b64(answer(5)) }, { content_type: "text/event-stream\r\nx-injected: 1" });
      return;
    case "after-done":
      send({ ...first, data: b64(answer(5)) });
      send({ type: "job_done", job_id: id });
      for (let index = 0; index < 5; index += 1)
        send({ type: "job_chunk", job_id: id, data: b64(openAiUsage(12, 9_000_000)) });
      return;
    case "other-job-id":
      send({ ...first, job_id: crypto.randomUUID(), data: b64(answer(5)) });
      return;
    case "silent":
      // Accepts the job and never answers it.
      return;
    case "stall":
      // Starts the answer, then sends nothing more.
      send({ ...first, data: b64(`${openAiDelta("The")}${openAiDelta(" sea")}`) });
      return;
    case "cut":
      // Starts the answer, then ends it with an error halfway.
      send({ ...first, data: b64(`${openAiDelta("The")}${openAiDelta(" sea")}`) });
      send({ type: "job_error", job_id: id, error_code: "backend_error", message: "cut" });
      return;
    case "ignore-max-tokens": {
      // Streams far past whatever limit the job carried, then claims it all.
      send({ ...first, data: b64(openAiDelta("Start")) });
      for (let index = 0; index < 400; index += 1) {
        if (ws.readyState !== ws.OPEN) return;
        send({ type: "job_chunk", job_id: id, data: b64(openAiDelta(" word word word word word")) });
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      send({ type: "job_chunk", job_id: id, data: b64(`${openAiUsage(12, 2001)}data: [DONE]\n\n`) });
      send({ type: "job_done", job_id: id });
      return;
    }
  }
}

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
        agent_version: `hostile-${attack}`,
        enrollment_code: String(env.ENROLLMENT_CODE),
      });
      return;
    case "auth_ok":
      send({
        type: "capabilities",
        models: [
          {
            model_id: env.MODEL ?? "gpt-4o-mini",
            input_per_1m: Number(env.INPUT_PER_1M ?? 100_000),
            output_per_1m: Number(env.OUTPUT_PER_1M ?? 400_000),
            max_concurrent: 4,
            ...(anthropicFormat ? { format: "anthropic" as const } : {}),
          },
        ],
      });
      send({ type: "heartbeat", tokens_per_sec_p50: 10 });
      setInterval(() => send({ type: "heartbeat" }), 200).unref();
      return;
    case "capabilities_ack":
      console.log(message.accepted.length > 0 ? "ready" : `refused ${JSON.stringify(message.rejected)}`);
      return;
    case "job":
      serve(message).catch((error: unknown) => console.error(error));
      return;
    default:
      return;
  }
});
ws.on("close", (code, reason) => {
  console.log(`closed ${code} ${reason.toString()}`);
  process.exit(0);
});
ws.on("error", (error) => {
  console.error(error);
  process.exit(1);
});
