import { describe, expect, it } from "vitest";
import type { Dialect } from "./ir";
import { parseSseFrames, parseSseJson, readFixture, splitBytes, toCrlf, translateBytes } from "./testing";

const options = { model: "gateway-model", includeUsage: true };
const encode = (text: string) => new TextEncoder().encode(text);

/** Ids and timestamps are fresh per stream; everything else must not depend on chunking. */
function normalise(text: string): string {
  return text
    .replace(/msg_[0-9A-Za-z]{24}/g, "msg_ID")
    .replace(/chatcmpl-[0-9A-Za-z]{24}/g, "chatcmpl-ID")
    .replace(/"created":\d+/g, '"created":0');
}

type Json = Record<string, unknown>;
const openaiDeltas = (chunks: Json[]) =>
  chunks.flatMap((chunk) => (chunk.choices as Array<{ delta: Json; finish_reason: string | null }>) ?? []);

function concatText(chunks: Json[]): string {
  return openaiDeltas(chunks)
    .map((choice) => (typeof choice.delta.content === "string" ? choice.delta.content : ""))
    .join("");
}

function accumulateToolCalls(chunks: Json[]) {
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for (const choice of openaiDeltas(chunks)) {
    const deltas = (choice.delta.tool_calls ?? []) as Array<{
      index: number;
      id?: string;
      function: { name?: string; arguments?: string };
    }>;
    for (const delta of deltas) {
      const call = calls[delta.index] ?? { id: "", name: "", arguments: "" };
      calls[delta.index] = call;
      if (delta.id) call.id = delta.id;
      if (delta.function.name) call.name += delta.function.name;
      call.arguments += delta.function.arguments ?? "";
    }
  }
  return calls;
}

function anthropicPartialJson(events: Json[], index: number): string {
  return events
    .filter((event) => event.type === "content_block_delta" && event.index === index)
    .map((event) => (event.delta as { partial_json?: string }).partial_json ?? "")
    .join("");
}

describe.each<{ fixture: string; from: Dialect; to: Dialect }>([
  { fixture: "openai-text-usage.sse", from: "openai", to: "anthropic" },
  { fixture: "openai-parallel-tool-calls.sse", from: "openai", to: "anthropic" },
  { fixture: "anthropic-text-ping-cache.sse", from: "anthropic", to: "openai" },
  { fixture: "anthropic-tool-use.sse", from: "anthropic", to: "openai" },
])("$fixture ($from → $to) does not depend on chunking or line endings", ({ fixture, from, to }) => {
  it.each([1, 3, 17, 4096])("chunks of %i bytes, LF and CRLF", async (size) => {
    const bytes = readFixture(fixture);
    const reference = normalise(await translateBytes(from, to, [bytes], options));
    expect(normalise(await translateBytes(from, to, splitBytes(bytes, size), options))).toBe(reference);
    expect(normalise(await translateBytes(from, to, splitBytes(toCrlf(bytes), size), options))).toBe(
      reference,
    );
  });
});

describe("openai upstream → anthropic caller", () => {
  it("replays the text stream with usage as Anthropic events", async () => {
    const output = await translateBytes(
      "openai",
      "anthropic",
      [readFixture("openai-text-usage.sse")],
      options,
    );
    const frames = parseSseFrames(output);
    // Every frame names its event and the name matches the payload type (the SDK needs both).
    for (const frame of frames) expect(JSON.parse(frame.data).type).toBe(frame.event);
    expect(frames.map((frame) => frame.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const events = parseSseJson(output);
    expect(events[0]).toMatchObject({
      message: { id: expect.stringMatching(/^msg_/), model: "gateway-model", role: "assistant", content: [] },
    });
    const text = events
      .filter((event) => event.type === "content_block_delta")
      .map((event) => (event.delta as { text: string }).text)
      .join("");
    expect(text).toBe("The weather in Paris is 18°C and sunny, Tokyo 24°C with light rain.");
    expect(events[7]).toEqual({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      // prompt_tokens 1536 includes 1280 cached tokens.
      usage: {
        input_tokens: 256,
        output_tokens: 19,
        cache_read_input_tokens: 1280,
        cache_creation_input_tokens: 0,
      },
    });
  });

  it("replays parallel tool calls as one tool_use block each", async () => {
    const events = parseSseJson(
      await translateBytes("openai", "anthropic", [readFixture("openai-parallel-tool-calls.sse")], options),
    );
    const starts = events.filter((event) => event.type === "content_block_start");
    expect(starts).toEqual([
      {
        type: "content_block_start",
        index: 0,
        content_block: {
          type: "tool_use",
          id: "call_8TqQmFzW1r0bH3xKp5Ny2LcV",
          name: "get_weather",
          input: {},
        },
      },
      {
        type: "content_block_start",
        index: 1,
        content_block: {
          type: "tool_use",
          id: "call_Ha3vLwY9sE2nQ0tK7bXm4RjD",
          name: "get_weather",
          input: {},
        },
      },
    ]);
    expect(JSON.parse(anthropicPartialJson(events, 0))).toEqual({ location: "Paris", unit: "celsius" });
    expect(JSON.parse(anthropicPartialJson(events, 1))).toEqual({ location: "Tokyo", unit: "celsius" });
    // Block 0 is closed before block 1 opens, as Anthropic itself streams.
    const order = events.map((event) => `${event.type}:${event.index ?? ""}`);
    expect(order.indexOf("content_block_stop:0")).toBeLessThan(order.indexOf("content_block_start:1"));
    expect(events.at(-2)).toMatchObject({
      delta: { stop_reason: "tool_use" },
      usage: { input_tokens: 86, output_tokens: 52 },
    });
  });

  it("puts interleaved argument deltas on the right block", async () => {
    const chunk = (delta: Json, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const wire = [
      chunk({ tool_calls: [{ index: 0, id: "call_a", function: { name: "a", arguments: '{"x":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: "call_b", function: { name: "b", arguments: '{"y":2}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
      chunk({}, "tool_calls"),
      "data: [DONE]\n\n",
    ].join("");
    const events = parseSseJson(await translateBytes("openai", "anthropic", [encode(wire)], options));
    expect(JSON.parse(anthropicPartialJson(events, 0))).toEqual({ x: 1 });
    expect(JSON.parse(anthropicPartialJson(events, 1))).toEqual({ y: 2 });
  });

  it("finishes without [DONE] when a finish_reason arrived (some compatible servers)", async () => {
    const wire = 'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"length"}]}\n\n';
    const events = parseSseJson(await translateBytes("openai", "anthropic", [encode(wire)], options));
    expect(events.map((event) => event.type)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events[4]).toMatchObject({ delta: { stop_reason: "max_tokens" } });
  });

  it("turns an upstream error frame into an Anthropic error event and stops", async () => {
    const output = await translateBytes(
      "openai",
      "anthropic",
      [readFixture("openai-error-midstream.sse")],
      options,
    );
    const frames = parseSseFrames(output);
    expect(frames.map((frame) => frame.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "error",
    ]);
    expect(JSON.parse(frames[3]?.data ?? "")).toEqual({
      type: "error",
      error: {
        type: "api_error",
        message: "The server had an error while processing your request. Sorry about that!",
      },
    });
  });

  it("reports a stream cut short as an in-band error, not a clean finish", async () => {
    const bytes = readFixture("openai-text-usage.sse");
    const text = new TextDecoder().decode(bytes);
    const truncated = encode(text.slice(0, text.indexOf('"finish_reason":"stop"') - 200));
    const frames = parseSseFrames(await translateBytes("openai", "anthropic", [truncated], options));
    expect(frames.at(-1)?.event).toBe("error");
    expect(frames.some((frame) => frame.event === "message_stop")).toBe(false);
  });

  it("reports a malformed chunk as an in-band error", async () => {
    const frames = parseSseFrames(
      await translateBytes("openai", "anthropic", [encode("data: {not json\n\n")], options),
    );
    expect(frames.map((frame) => frame.event)).toEqual(["error"]);
  });
});

describe("anthropic upstream → openai caller", () => {
  it("replays the text stream with ping and cache usage as OpenAI chunks", async () => {
    const output = await translateBytes(
      "anthropic",
      "openai",
      [readFixture("anthropic-text-ping-cache.sse")],
      options,
    );
    const frames = parseSseFrames(output);
    expect(frames.at(-1)?.data).toBe("[DONE]");
    expect(frames.every((frame) => frame.event === undefined)).toBe(true);
    const chunks = parseSseJson(output);
    const ids = new Set(chunks.map((chunk) => chunk.id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^chatcmpl-/);
    for (const chunk of chunks)
      expect(chunk).toMatchObject({ object: "chat.completion.chunk", model: "gateway-model" });
    expect(openaiDeltas(chunks)[0]?.delta).toEqual({ role: "assistant", content: "", refusal: null });
    expect(concatText(chunks)).toBe("Bonjour! Paris is 18°C and sunny today. 🌤");
    expect(openaiDeltas(chunks).at(-1)?.finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: 2165,
        completion_tokens: 14,
        total_tokens: 2179,
        prompt_tokens_details: { cached_tokens: 1888, cache_write_tokens: 256 },
      },
    });
  });

  it("omits the usage chunk when the caller did not ask for it", async () => {
    const output = await translateBytes(
      "anthropic",
      "openai",
      [readFixture("anthropic-text-ping-cache.sse")],
      {
        ...options,
        includeUsage: false,
      },
    );
    const chunks = parseSseJson(output);
    expect(chunks.some((chunk) => "usage" in chunk)).toBe(false);
    expect(parseSseFrames(output).at(-1)?.data).toBe("[DONE]");
  });

  it("replays the tool_use stream: thinking dropped, text, then one streamed tool call", async () => {
    const chunks = parseSseJson(
      await translateBytes("anthropic", "openai", [readFixture("anthropic-tool-use.sse")], options),
    );
    expect(concatText(chunks)).toBe("I'll check the current weather in Paris for you.");
    const calls = accumulateToolCalls(chunks);
    expect(calls).toEqual([
      { id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", arguments: expect.any(String) },
    ]);
    expect(JSON.parse(calls[0]?.arguments ?? "")).toEqual({ location: "Paris, France", unit: "celsius" });
    expect(openaiDeltas(chunks).at(-1)?.finish_reason).toBe("tool_calls");
    expect(chunks.at(-1)).toMatchObject({
      usage: { prompt_tokens: 472, completion_tokens: 89, total_tokens: 561 },
    });
  });

  it("gives a tool call without streamed input the arguments {}", async () => {
    const wire = [
      'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_x","name":"now","input":{}}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}\n\n',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
      'event: some_future_event\ndata: {"type":"some_future_event"}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join("");
    const chunks = parseSseJson(await translateBytes("anthropic", "openai", [encode(wire)], options));
    expect(accumulateToolCalls(chunks)).toEqual([{ id: "toolu_x", name: "now", arguments: "{}" }]);
    expect(chunks.at(-1)).toMatchObject({ usage: { prompt_tokens: 5, completion_tokens: 9 } });
  });

  it("turns an upstream error event into an OpenAI error frame without [DONE]", async () => {
    const output = await translateBytes(
      "anthropic",
      "openai",
      [readFixture("anthropic-error-midstream.sse")],
      options,
    );
    const frames = parseSseFrames(output);
    expect(frames.some((frame) => frame.data === "[DONE]")).toBe(false);
    expect(concatText(parseSseJson(output))).toBe("Let me think");
    expect(JSON.parse(frames.at(-1)?.data ?? "")).toEqual({
      error: { message: "Overloaded", type: "server_error", param: null, code: "overloaded_error" },
    });
  });

  it("reports a stream cut before message_delta as an in-band error", async () => {
    const text = new TextDecoder().decode(readFixture("anthropic-tool-use.sse"));
    const truncated = encode(text.slice(0, text.indexOf("event: message_delta")));
    const frames = parseSseFrames(await translateBytes("anthropic", "openai", [truncated], options));
    expect(frames.some((frame) => frame.data === "[DONE]")).toBe(false);
    expect(JSON.parse(frames.at(-1)?.data ?? "")).toMatchObject({ error: { type: "server_error" } });
  });
});

describe("same-dialect passthrough", () => {
  it("openai → openai replaces the model and drops usage the caller did not ask for", async () => {
    const output = await translateBytes("openai", "openai", [readFixture("openai-text-usage.sse")], {
      model: "alias",
      includeUsage: false,
    });
    const chunks = parseSseJson(output);
    expect(chunks).toHaveLength(6);
    for (const chunk of chunks) {
      expect(chunk.model).toBe("alias");
      expect(chunk).not.toHaveProperty("usage");
      expect(chunk).toHaveProperty("system_fingerprint", "fp_560af6e559");
    }
    expect(parseSseFrames(output).at(-1)?.data).toBe("[DONE]");
  });

  it("openai → openai keeps the usage chunk when asked", async () => {
    const chunks = parseSseJson(
      await translateBytes("openai", "openai", [readFixture("openai-text-usage.sse")], options),
    );
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 1536 } });
  });

  it("anthropic → anthropic keeps every event (ping, thinking) and replaces the model", async () => {
    const upstream = readFixture("anthropic-tool-use.sse");
    const output = await translateBytes("anthropic", "anthropic", [upstream], options);
    const upstreamFrames = parseSseFrames(new TextDecoder().decode(upstream));
    const frames = parseSseFrames(output);
    expect(frames.map((frame) => frame.event)).toEqual(upstreamFrames.map((frame) => frame.event));
    expect(frames.slice(1)).toEqual(upstreamFrames.slice(1));
    expect(JSON.parse(frames[0]?.data ?? "")).toMatchObject({ message: { model: "gateway-model" } });
  });
});
