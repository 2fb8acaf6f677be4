import { describe, expect, it } from "vitest";
import { StreamUsageTap } from "./stream-usage-tap";
import { normalizeUsage } from "./usage-from-body";

/** The event name and data of one wire frame, as the SSE decoder hands them over. */
function frame(text: string): { event?: string; data: string } {
  const event = /^event: (.*)$/m.exec(text)?.[1];
  const data = /^data: (.*)$/m.exec(text)?.[1] ?? "";
  return event === undefined ? { data } : { event, data };
}

describe("usage normalisation", () => {
  it("OpenAI prompt tokens include cached reads; they are split out", () => {
    expect(
      normalizeUsage("openai", {
        prompt_tokens: 100,
        completion_tokens: 7,
        prompt_tokens_details: { cached_tokens: 40 },
      }),
    ).toEqual({
      inputTokens: 60,
      outputTokens: 7,
      cacheReadTokens: 40,
      cacheWriteTokens: 0,
    });
  });
  it("Anthropic input tokens already exclude cache reads and writes", () => {
    expect(
      normalizeUsage("anthropic", {
        input_tokens: 10,
        output_tokens: 3,
        cache_read_input_tokens: 50,
        cache_creation_input_tokens: 5,
      }),
    ).toEqual({ inputTokens: 10, outputTokens: 3, cacheReadTokens: 50, cacheWriteTokens: 5 });
  });
  it("ignores missing or malformed usage", () => {
    expect(normalizeUsage("openai", null)).toBeUndefined();
    expect(normalizeUsage("openai", { prompt_tokens: "x" })).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });
});

describe("StreamUsageTap", () => {
  it("finds the OpenAI usage chunk, marks it as the injected one, and sees [DONE]", () => {
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
    expect(tap.usage).toEqual({ inputTokens: 5, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(tap.sawTerminal).toBe(true);
    expect(tap.deltaCount).toBe(1);
  });

  it("merges Anthropic message_start and message_delta usage", () => {
    const tap = new StreamUsageTap("anthropic");
    tap.inspect(
      frame(
        'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":12,"output_tokens":1,"cache_read_input_tokens":4}}}\n\n',
      ),
    );
    tap.inspect(
      frame(
        'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}\n\n',
      ),
    );
    tap.inspect(
      frame('event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":9}}\n\n'),
    );
    tap.inspect(frame('event: message_stop\ndata: {"type":"message_stop"}\n\n'));
    expect(tap.usage).toEqual({ inputTokens: 12, outputTokens: 9, cacheReadTokens: 4, cacheWriteTokens: 0 });
    expect(tap.sawTerminal).toBe(true);
    expect(tap.deltaCount).toBe(1);
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

  it("bills the deltas seen when an Anthropic stream ends before message_delta", () => {
    const tap = new StreamUsageTap("anthropic");
    tap.inspect(
      frame(
        'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":12,"output_tokens":1}}}\n\n',
      ),
    );
    for (let index = 0; index < 7; index += 1)
      tap.inspect(
        frame(
          'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}\n\n',
        ),
      );
    expect(tap.billableUsage()).toEqual({
      inputTokens: 12,
      outputTokens: 7,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    tap.inspect(
      frame('event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":3}}\n\n'),
    );
    expect(tap.billableUsage()?.outputTokens).toBe(3);
  });
});
