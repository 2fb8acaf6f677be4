import { describe, expect, it } from "vitest";
import { StreamUsageTap } from "./stream-usage-tap";

/** The event name and data of one wire frame, as the SSE decoder hands them over. */
function frame(text: string): { event?: string; data: string } {
  const event = /^event: (.*)$/m.exec(text)?.[1];
  const data = /^data: (.*)$/m.exec(text)?.[1] ?? "";
  return event === undefined ? { data } : { event, data };
}

describe("StreamUsageTap", () => {
  it("finds the OpenAI usage chunk, marks it as the injected one, collects the content and sees [DONE]", () => {
    const tap = new StreamUsageTap("openai");
    expect(
      tap.inspect(frame('data: {"choices":[{"delta":{"content":"hi"}}],"usage":null}\n\n'))
        .injectedUsageChunk,
    ).toBe(false);
    expect(
      tap.inspect(frame('data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}\n\n'))
        .injectedUsageChunk,
    ).toBe(true);
    tap.inspect(frame("data: [DONE]\n\n"));
    expect(tap.claim).toMatchObject({
      type: "read",
      usage: { inputTokens: 5, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      outputReported: true,
    });
    expect(tap.sawTerminal).toBe(true);
    expect(tap.content.text()).toBe("hi");
  });

  it("keeps an Anthropic output count a placeholder until message_delta reports it; later figures win", () => {
    const tap = new StreamUsageTap("anthropic");
    tap.inspect(
      frame(
        'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":12,"output_tokens":1,"cache_read_input_tokens":4}}}\n\n',
      ),
    );
    tap.inspect(
      frame(
        'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"x y"}}\n\n',
      ),
    );
    expect(tap.claim).toMatchObject({ type: "read", outputReported: false });
    tap.inspect(
      frame('event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":9}}\n\n'),
    );
    tap.inspect(frame('event: message_stop\ndata: {"type":"message_stop"}\n\n'));
    expect(tap.claim).toMatchObject({
      type: "read",
      usage: { inputTokens: 12, outputTokens: 9, cacheReadTokens: 4, cacheWriteTokens: 0 },
      outputReported: true,
    });
    expect(tap.sawTerminal).toBe(true);
    expect(tap.content.text()).toBe("x y");
  });

  it("records an in-band upstream error", () => {
    const tap = new StreamUsageTap("anthropic");
    tap.inspect(
      frame(
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      ),
    );
    expect(tap.upstreamError).toBe("Overloaded");
  });

  it.each([
    ["2^31", 2 ** 31],
    ["1e15", 1e15],
    ["negative", -5],
    ["fractional", 2.5],
  ])("refuses a %s token count: the claim is invalid, and stays so", (_name, value) => {
    const tap = new StreamUsageTap("openai");
    tap.inspect(frame(`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":${value}}}\n\n`));
    expect(tap.claim.type).toBe("invalid");
    tap.inspect(frame('data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}\n\n'));
    expect(tap.claim.type).toBe("invalid");
  });

  it("collects tool-call names and arguments as relayed content", () => {
    const tap = new StreamUsageTap("openai");
    tap.inspect(
      frame(
        'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"get_weather","arguments":"{\\"city\\""}}]}}]}\n\n',
      ),
    );
    tap.inspect(
      frame('data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}\n\n'),
    );
    expect(tap.content.text()).toBe('get_weather{"city":1}');
    expect(tap.content.toolCalls).toBe(1);
  });
});
