import { describe, expect, it } from "vitest";
import {
  accumulateToolCalls,
  concatText,
  openaiDeltas,
  parseSseFrames,
  parseSseJson,
  readFixture,
  translateBytes,
} from "./testing";

const options = { model: "gateway-model", includeUsage: true };
const encode = (text: string) => new TextEncoder().encode(text);

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
