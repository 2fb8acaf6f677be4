import { randomUUID } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import { readFakeBody, writeFakeImages } from "./fake-images";
import { answerFrom, referenceModel, scoringReply, smallerModel } from "./fake-model-text";
import { schemaInstance } from "./schema-instance";

/**
 * A local stand-in for the OpenAI or Anthropic API that speaks its exact wire format.
 * Behaviour is steered from the prompt with directives such as `[fake:error=500]`,
 * `[fake:tokens=12]`, `[fake:slow=20]`, `[fake:cut=3]`, `[fake:tool]`, `[fake:cache]`,
 * `[fake:html=400]` (an HTML error page), `[fake:hang=3000]` (headers that long late),
 * `[fake:overreport=5000]` (usage that many tokens above what it sent, input and output each),
 * `[fake:linger=30000]` (a stream quiet that long after its last token, before it finishes).
 * The OpenAI fake also answers `/v1/images/generations` and `/v1/images/edits` (fake-images.ts).
 * Like the real APIs it honours structured output: a forced tool (OpenAI `tool_choice`
 * function, Anthropic `tool_choice` tool/any) is called with arguments valid for its schema,
 * and `response_format` / `output_config.format` make the text a JSON value of the schema.
 */
export type FakeDialect = "openai" | "anthropic";

export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export interface FakeUpstream {
  dialect: FakeDialect;
  /** Base URL as the gateway's env expects it (OpenAI with /v1, Anthropic without). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Requests whose connection the client closed before the response ended. */
  abortedRequests: number;
  /** Generation requests being answered right now, and the most there ever were at once. */
  activeRequests: number;
  peakActiveRequests: number;
  /** What `GET /v1/models` answers from now on (an upstream's own list, e.g. OpenRouter's with prices). */
  setModelList(body: unknown): void;
  /** From now on every generated token waits this long at least (this fake's own speed). */
  setTokenDelay(ms: number): void;
  /** From now on answers come in this voice (FakeUpstreamOptions.voice). */
  setVoice(voice: NonNullable<FakeUpstreamOptions["voice"]>): void;
  /**
   * Off: a scoring request (`echo` with `continue_final_message`) is refused as OpenAI's own API
   * refuses an argument it does not take, a reference that gives no log-probabilities.
   */
  setLogprobs(on: boolean): void;
  /**
   * From now on streamed tokens come at this rate, each at its time from the answer's start
   * (token i at (i + 1) / rate seconds): a late timer delays one token, not every later one, so
   * the rate holds on a loaded machine. 0 turns it off.
   */
  setTokenRate(tokensPerSecond: number): void;
  close(): Promise<void>;
}

interface Directives {
  error?: number;
  tokens: number;
  slowMs: number;
  /** Token i is written at (i + 1) × paceMs after the first token's loop starts (setTokenRate). */
  paceMs?: number;
  cutAfter?: number;
  tool: boolean;
  cache: boolean;
  noUsage: boolean;
  /** Tokens added to the reported input and output: a vendor billing more than it sent. */
  overreport: number;
  /** A stream's pause after its last token, before its finish: a process can die in it. */
  lingerMs: number;
  /** The answer's words, by position: the fake's "model". */
  word(index: number): string;
  /** Another answer to the same request, for each choice after the first when `n` asks for several. */
  another?(): string;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === "object" && part !== null && "text" in part && typeof part.text === "string"
          ? part.text
          : "",
      )
      .join(" ");
  }
  return "";
}

/** Waits until token `index` is due: its time from the start, whatever the timers before it did. */
function pacer(paceMs: number | undefined): (index: number) => Promise<void> {
  const start = performance.now();
  return async (index) => {
    if (paceMs === undefined) return;
    const wait = start + (index + 1) * paceMs - performance.now();
    if (wait > 0) await sleep(wait);
  };
}

function promptText(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const system = textOf(body.system);
  return [
    system,
    ...messages.map((message: unknown) => textOf((message as { content?: unknown }).content)),
  ].join("\n");
}

function readDirectives(prompt: string, maxTokens: number | undefined): Directives {
  const value = (name: string) => new RegExp(`\\[fake:${name}(?:=(\\d+))?\\]`).exec(prompt);
  const error = value("error")?.[1];
  const tokens = Number(value("tokens")?.[1] ?? 5);
  const slow = Number(value("slow")?.[1] ?? 0);
  const cut = value("cut")?.[1];
  return {
    ...(error ? { error: Number(error) } : {}),
    tokens: Math.max(1, Math.min(tokens, maxTokens ?? tokens)),
    slowMs: slow,
    ...(cut ? { cutAfter: Number(cut) } : {}),
    tool: value("tool") !== null,
    cache: value("cache") !== null,
    noUsage: value("nousage") !== null,
    overreport: Number(value("overreport")?.[1] ?? 0),
    lingerMs: Number(value("linger")?.[1] ?? 0),
    word,
  };
}

export function promptTokensOf(body: Record<string, unknown>): number {
  return Math.max(1, Math.ceil(promptText(body).length / 4));
}

interface ToolReply {
  name: string;
  argumentsJson: string;
}

const recordOf = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/** The tool a request forces, called with arguments its schema accepts. */
function forcedTool(dialect: FakeDialect, body: Record<string, unknown>): ToolReply | undefined {
  const tools = Array.isArray(body.tools) ? body.tools.map(recordOf) : [];
  const choice = body.tool_choice;
  const nameOf = (tool: Record<string, unknown>) =>
    String(dialect === "openai" ? recordOf(tool.function).name : tool.name);
  const schemaOf = (tool: Record<string, unknown>) =>
    dialect === "openai" ? recordOf(tool.function).parameters : tool.input_schema;
  let chosen: Record<string, unknown> | undefined;
  if (dialect === "openai") {
    const named = recordOf(recordOf(choice).function).name;
    if (typeof named === "string") chosen = tools.find((tool) => nameOf(tool) === named);
    else if (choice === "required") chosen = tools[0];
  } else {
    const { type, name } = recordOf(choice);
    if (type === "tool") chosen = tools.find((tool) => nameOf(tool) === name);
    else if (type === "any") chosen = tools[0];
  }
  if (!chosen) return undefined;
  return { name: nameOf(chosen), argumentsJson: JSON.stringify(schemaInstance(schemaOf(chosen))) };
}

/** The answer text under `response_format` (OpenAI) or `output_config.format` (Anthropic). */
function structuredText(dialect: FakeDialect, body: Record<string, unknown>): string | undefined {
  if (dialect === "openai") {
    const format = recordOf(body.response_format);
    if (format.type === "json_object") return JSON.stringify({ answer: "Hello" });
    if (format.type === "json_schema")
      return JSON.stringify(schemaInstance(recordOf(format.json_schema).schema));
    return undefined;
  }
  const format = recordOf(recordOf(body.output_config).format ?? body.output_format);
  return format.type === "json_schema" ? JSON.stringify(schemaInstance(format.schema)) : undefined;
}

/** JSON text streamed in two pieces, as a model's tokens arrive. */
const halves = (text: string) => [
  text.slice(0, Math.ceil(text.length / 2)),
  text.slice(Math.ceil(text.length / 2)),
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sendError(dialect: FakeDialect, response: ServerResponse, status: number): void {
  const message = `fake upstream error ${status}`;
  const body =
    dialect === "anthropic"
      ? {
          type: "error",
          error: {
            type: status === 429 ? "rate_limit_error" : status >= 500 ? "api_error" : "invalid_request_error",
            message,
          },
        }
      : {
          error: {
            message,
            type: status === 429 ? "rate_limit_error" : "server_error",
            code: null,
            param: null,
          },
        };
  // Real upstreams say when to come back after a rate limit.
  response.writeHead(status, {
    "content-type": "application/json",
    ...(status === 429 ? { "retry-after": "7" } : {}),
  });
  response.end(JSON.stringify(body));
}

/** The models a fake lists on `GET /v1/models` (it answers for any model id). */
const servedModels = ["gpt-4o-mini", "llama-3.1-8b-instruct"];

export interface FakeUpstreamOptions {
  /**
   * `other` answers with other words than every other fake: a different model behind the same
   * wire format. `model` and `smaller` answer from the verification simulation's fake model and
   * its smaller sibling (tests/helpers/fake-model-text.ts), words a reference can score.
   */
  voice?: "default" | "other" | "model" | "smaller";
}

export async function startFakeUpstream(
  dialect: FakeDialect,
  name = `fake-${dialect}`,
  options: FakeUpstreamOptions = {},
): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const state = {
    abortedRequests: 0,
    active: 0,
    peak: 0,
    modelList: undefined as unknown,
    tokenDelayMs: 0,
    paceMs: 0,
    voice: options.voice ?? "default",
    logprobs: true,
  };
  const server: Server = createServer((request, response) => {
    // What llama.cpp server, vLLM and LM Studio answer, so provider agents can discover models.
    if (request.method === "GET" && request.url === "/v1/models") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify(
          state.modelList ?? { object: "list", data: servedModels.map((id) => ({ id, object: "model" })) },
        ),
      );
      return;
    }
    readFakeBody(request)
      .then(async (body) => {
        requests.push({ path: request.url ?? "", headers: request.headers, body });
        state.active += 1;
        state.peak = Math.max(state.peak, state.active);
        response.once("close", () => {
          state.active -= 1;
          if (!response.writableFinished) state.abortedRequests += 1;
        });
        if (dialect === "anthropic" && request.url === "/v1/messages/count_tokens") {
          const failure = /\[fake:fail=([a-z0-9-]+)(?::(\d+))?\]/.exec(promptText(body));
          if (failure?.[1] === name) return sendError(dialect, response, Number(failure[2] ?? 500));
          response.writeHead(200, { "content-type": "application/json" });
          response.end(JSON.stringify({ input_tokens: promptTokensOf(body) }));
          return;
        }
        if (dialect === "openai" && request.url === "/v1/embeddings") {
          for (const failure of JSON.stringify(body.input).matchAll(/\[fake:fail=([a-z0-9-]+)\]/g))
            if (failure[1] === name) return sendError(dialect, response, 500);
          return writeEmbeddings(response, body, name);
        }
        if (dialect === "openai" && /^\/v1\/images\/(generations|edits)$/.test(request.url ?? "")) {
          const prompt = String(body.prompt ?? "");
          const error = /\[fake:error=(\d+)\]/.exec(prompt)?.[1];
          if (error) return sendError(dialect, response, Number(error));
          for (const failure of prompt.matchAll(/\[fake:fail=([a-z0-9-]+)\]/g))
            if (failure[1] === name) return sendError(dialect, response, 500);
          return writeFakeImages(response, body, name);
        }
        const expected = dialect === "openai" ? "/v1/chat/completions" : "/v1/messages";
        if (request.url !== expected) return sendError(dialect, response, 404);
        // A reference's teacher-forced scoring (lib/verification/reference-scoring.ts), as vLLM's
        // chat endpoint answers `echo` with `continue_final_message`: over the fake model's words.
        if (dialect === "openai" && body.echo === true && body.continue_final_message === true) {
          if (!state.logprobs) {
            response.writeHead(400, { "content-type": "application/json" });
            response.end(
              JSON.stringify({
                error: {
                  message: "Unrecognized request argument supplied: echo",
                  type: "invalid_request_error",
                  param: null,
                  code: null,
                },
              }),
            );
            return;
          }
          const scored = scoringReply(body);
          if (!scored) return sendError(dialect, response, 400);
          response.writeHead(200, { "content-type": "application/json" });
          response.end(JSON.stringify(scored));
          return;
        }
        const maxTokens = (body.max_tokens ?? body.max_completion_tokens) as number | undefined;
        const prompt = promptText(body);
        const read = readDirectives(prompt, maxTokens);
        const directives = {
          ...read,
          slowMs: Math.max(read.slowMs, state.tokenDelayMs),
          ...(state.paceMs > 0 ? { paceMs: state.paceMs } : {}),
          ...(state.voice === "other" ? { word: otherWord } : {}),
          ...(state.voice === "model" || state.voice === "smaller"
            ? modelWords(state.voice, body, maxTokens)
            : {}),
          ...inventedWords(prompt),
        };
        if (directives.error) return sendError(dialect, response, directives.error);
        // `[fake:html=<status>]`: an error page, as a load balancer in front of an upstream sends.
        const html = /\[fake:html=(\d+)\]/.exec(prompt)?.[1];
        if (html) {
          response.writeHead(Number(html), { "content-type": "text/html" });
          response.end("<html><body>upstream-internal-detail 10.0.0.7</body></html>");
          return;
        }
        // `[fake:hang=<ms>]`: no headers for that long (a header timeout on the gateway's side).
        const hang = Number(/\[fake:hang=(\d+)\]/.exec(prompt)?.[1] ?? 0);
        if (hang > 0) await sleep(hang);
        // `[fake:fail=<name>]` fails only the named fake, so failover to another one can be shown.
        for (const match of prompt.matchAll(/\[fake:fail=([a-z0-9-]+)(?::(\d+))?\]/g)) {
          if (match[1] === name) return sendError(dialect, response, Number(match[2] ?? 500));
        }
        const writer = dialect === "openai" ? openaiWriter : anthropicWriter;
        await writer(response, body, directives, name);
      })
      .catch(() => {
        if (!response.headersSent) sendError(dialect, response, 400);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    dialect,
    baseUrl: dialect === "openai" ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`,
    requests,
    get abortedRequests() {
      return state.abortedRequests;
    },
    get activeRequests() {
      return state.active;
    },
    get peakActiveRequests() {
      return state.peak;
    },
    setModelList(body) {
      state.modelList = body;
    },
    setTokenDelay(ms) {
      state.tokenDelayMs = ms;
    },
    setVoice(voice) {
      state.voice = voice;
    },
    setLogprobs(on) {
      state.logprobs = on;
    },
    setTokenRate(tokensPerSecond) {
      state.paceMs = tokensPerSecond > 0 ? 1000 / tokensPerSecond : 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * OpenAI's embeddings answer: one vector per input (`dimensions` long, default 8), as floats
 * or base64 of little-endian float32; usage counts a token per 4 characters of text, or the
 * token ids given.
 */
function writeEmbeddings(response: ServerResponse, body: Record<string, unknown>, name: string): void {
  const input = body.input;
  const items: unknown[] =
    typeof input === "string"
      ? [input]
      : Array.isArray(input) && input.every((item) => typeof item === "number")
        ? [input]
        : Array.isArray(input)
          ? input
          : [];
  const dimensions = typeof body.dimensions === "number" ? body.dimensions : 8;
  const tokens = items.reduce<number>(
    (sum, item) =>
      sum +
      (typeof item === "string"
        ? Math.max(1, Math.ceil(item.length / 4))
        : Array.isArray(item)
          ? item.length
          : 0),
    0,
  );
  const data = items.map((_, index) => {
    const vector = Array.from({ length: dimensions }, (_unused, position) => (index + 1) / (position + 2));
    const embedding =
      body.encoding_format === "base64"
        ? Buffer.from(new Float32Array(vector).buffer).toString("base64")
        : vector;
    return { object: "embedding", index, embedding };
  });
  response.writeHead(200, { "content-type": "application/json", "x-fake": name });
  response.end(
    JSON.stringify({
      object: "list",
      data,
      model: String(body.model),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    }),
  );
}

const word = (index: number) => (index === 0 ? "Hello" : ` w${index}`);
/**
 * Asked to invent the texts of a request as a JSON array (lib/canaries/canary-texts.ts), the fake
 * writes that array as a model would: new words every time.
 */
function inventedWords(prompt: string): { tokens: number; word: (index: number) => string } | undefined {
  const count = Number(/Answer with a JSON array of exactly (\d+) strings/.exec(prompt)?.[1] ?? 0);
  if (count === 0) return undefined;
  const texts = Array.from(
    { length: count },
    (_, index) =>
      `Text ${index + 1} of request ${randomUUID().slice(0, 8)}: could you look at item ${Math.floor(Math.random() * 1e6)}?`,
  );
  const words = JSON.stringify(texts).split(/(?= )/);
  return { tokens: words.length, word: (index) => words[index] ?? "" };
}

let modelAnswers = 0;
/** The fake model's answer (or its smaller sibling's) to the body, word by word; each call a new sample. */
function modelWords(
  voice: "model" | "smaller",
  body: Record<string, unknown>,
  maxTokens: number | undefined,
): { tokens: number; word: (index: number) => string; another: () => string } {
  const sample = () => {
    modelAnswers += 1;
    return answerFrom(
      voice === "model" ? referenceModel : smallerModel,
      body,
      typeof body.temperature === "number" ? body.temperature : 1,
      // A word of the fake model is up to 3 tokens of the gateway's tokenizer: stay within the limit.
      Math.max(1, Math.floor((maxTokens ?? 768) / 3)),
      modelAnswers * 7919 + process.pid,
    ).text;
  };
  const words = sample().split(/(?= )/);
  return { tokens: words.length, word: (index) => words[index] ?? "", another: sample };
}

const otherWord = (index: number) => (index === 0 ? "Certainly" : ` z${index}`);

async function openaiWriter(
  response: ServerResponse,
  body: Record<string, unknown>,
  directives: Directives,
  name: string,
) {
  const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
  const model = String(body.model);
  const created = Math.floor(Date.now() / 1000);
  const prompt = promptTokensOf(body) + directives.overreport;
  const cached = directives.cache ? Math.floor(prompt / 2) : 0;
  // Like OpenAI, every one of `n` choices is generated and billed.
  const choices = typeof body.n === "number" && body.n > 1 ? body.n : 1;
  const completion = directives.tokens * choices + directives.overreport;
  const usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
  };
  const forced = forcedTool("openai", body);
  const structured = structuredText("openai", body);
  const callsTool = forced !== undefined || directives.tool;
  const toolCall = {
    id: "call_fake_1",
    type: "function",
    function: forced
      ? { name: forced.name, arguments: forced.argumentsJson }
      : { name: "get_weather", arguments: '{"city":"Paris"}' },
  };
  if (body.stream !== true) {
    const text =
      structured ?? Array.from({ length: directives.tokens }, (_, index) => directives.word(index)).join("");
    const message = callsTool
      ? { role: "assistant", content: null, tool_calls: [toolCall] }
      : { role: "assistant", content: text };
    response.writeHead(200, { "content-type": "application/json", "x-fake": name });
    response.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created,
        model,
        choices: Array.from({ length: choices }, (_, index) => ({
          index,
          message:
            index > 0 && directives.another && !callsTool && structured === undefined
              ? { role: "assistant", content: directives.another() }
              : message,
          finish_reason: callsTool ? "tool_calls" : "stop",
          logprobs: null,
        })),
        ...(directives.noUsage ? {} : { usage }),
      }),
    );
    return;
  }
  const includeUsage =
    (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  response.writeHead(200, { "content-type": "text/event-stream", "x-fake": name });
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) })}\n\n`;
  response.write(": keep-alive\n\n");
  response.write(chunk({ role: "assistant", content: "" }, null));
  if (callsTool) {
    response.write(
      chunk(
        {
          tool_calls: [
            {
              index: 0,
              id: toolCall.id,
              type: "function",
              function: { name: toolCall.function.name, arguments: "" },
            },
          ],
        },
        null,
      ),
    );
    for (const piece of halves(toolCall.function.arguments)) {
      response.write(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }, null));
    }
  } else if (structured !== undefined) {
    for (const piece of halves(structured)) response.write(chunk({ content: piece }, null));
  } else {
    const paced = pacer(directives.paceMs);
    for (let index = 0; index < directives.tokens; index += 1) {
      if (directives.cutAfter !== undefined && index >= directives.cutAfter) {
        // Let what was written reach the client first: this is a cut after the first byte.
        await sleep(20);
        response.destroy();
        return;
      }
      if (directives.slowMs > 0) await sleep(directives.slowMs);
      if (directives.paceMs !== undefined) await paced(index);
      if (response.destroyed) return;
      response.write(chunk({ content: directives.word(index) }, null));
    }
  }
  if (directives.lingerMs > 0) await sleep(directives.lingerMs);
  if (response.destroyed) return;
  response.write(chunk({}, callsTool ? "tool_calls" : "stop"));
  if (includeUsage && !directives.noUsage) {
    response.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`,
    );
  }
  response.end("data: [DONE]\n\n");
}

async function anthropicWriter(
  response: ServerResponse,
  body: Record<string, unknown>,
  directives: Directives,
  name: string,
) {
  const id = `msg_${Math.random().toString(36).slice(2)}`;
  const model = String(body.model);
  const prompt = promptTokensOf(body) + directives.overreport;
  const cacheRead = directives.cache ? Math.floor(prompt / 2) : 0;
  const cacheWrite = directives.cache ? 3 : 0;
  const usage = {
    input_tokens: prompt - cacheRead,
    output_tokens: directives.tokens + directives.overreport,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
  };
  const forced = forcedTool("anthropic", body);
  const structured = structuredText("anthropic", body);
  const callsTool = forced !== undefined || directives.tool;
  const toolUse = {
    type: "tool_use",
    id: "toolu_fake_1",
    name: forced?.name ?? "get_weather",
    input: forced ? JSON.parse(forced.argumentsJson) : { city: "Paris" },
  };
  if (body.stream !== true) {
    const text =
      structured ?? Array.from({ length: directives.tokens }, (_, index) => directives.word(index)).join("");
    response.writeHead(200, { "content-type": "application/json", "x-fake": name });
    response.end(
      JSON.stringify({
        id,
        type: "message",
        role: "assistant",
        model,
        content: callsTool ? [toolUse] : [{ type: "text", text }],
        stop_reason: callsTool ? "tool_use" : "end_turn",
        stop_sequence: null,
        ...(directives.noUsage ? {} : { usage }),
      }),
    );
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream", "x-fake": name });
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  response.write(
    event("message_start", {
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
  );
  response.write(event("ping", {}));
  if (callsTool) {
    response.write(
      event("content_block_start", {
        index: 0,
        content_block: { type: "tool_use", id: toolUse.id, name: toolUse.name, input: {} },
      }),
    );
    for (const piece of halves(JSON.stringify(toolUse.input))) {
      response.write(
        event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: piece } }),
      );
    }
  } else if (structured !== undefined) {
    response.write(event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
    for (const piece of halves(structured)) {
      response.write(event("content_block_delta", { index: 0, delta: { type: "text_delta", text: piece } }));
    }
  } else {
    response.write(event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
    const paced = pacer(directives.paceMs);
    for (let index = 0; index < directives.tokens; index += 1) {
      if (directives.cutAfter !== undefined && index >= directives.cutAfter) {
        // Let what was written reach the client first: this is a cut after the first byte.
        await sleep(20);
        response.destroy();
        return;
      }
      if (directives.slowMs > 0) await sleep(directives.slowMs);
      if (directives.paceMs !== undefined) await paced(index);
      if (response.destroyed) return;
      response.write(
        event("content_block_delta", {
          index: 0,
          delta: { type: "text_delta", text: directives.word(index) },
        }),
      );
    }
  }
  response.write(event("content_block_stop", { index: 0 }));
  response.write(
    event("message_delta", {
      delta: { stop_reason: callsTool ? "tool_use" : "end_turn", stop_sequence: null },
      usage: directives.noUsage
        ? { output_tokens: 0 }
        : { output_tokens: directives.tokens + directives.overreport },
    }),
  );
  response.end(event("message_stop", {}));
}
