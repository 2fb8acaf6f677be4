import { describe, expect, it } from "vitest";
import {
  anthropicPartialJson,
  type Json,
  parseSseFrames,
  parseSseJson,
  readFixture,
  translateBytes,
} from "./testing";

const options = { model: "gateway-model", includeUsage: true };
const encode = (text: string) => new TextEncoder().encode(text);

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

  it("opens with the prompt's count when the gateway gives one (OpenAI reports usage only at the end)", async () => {
    const opening = async (extra: { inputTokens?: number }) =>
      parseSseJson(
        await translateBytes("openai", "anthropic", [readFixture("openai-text-usage.sse")], {
          ...options,
          ...extra,
        }),
      )[0];
    expect(await opening({ inputTokens: 1_530 })).toMatchObject({
      type: "message_start",
      message: { usage: { input_tokens: 1_530, output_tokens: 0 } },
    });
    expect(await opening({})).toMatchObject({ message: { usage: { input_tokens: 0 } } });
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
