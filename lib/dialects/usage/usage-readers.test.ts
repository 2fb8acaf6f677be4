import { describe, expect, it } from "vitest";
import { renderAnthropicUsage } from "../translate/anthropic/map-usage";
import { renderOpenaiUsage } from "../translate/openai/map-usage";
import { renderResponsesUsage } from "../translate/responses/map-usage";
import {
  mergeAnthropicUsage,
  readAnthropicUsage,
  readAnthropicUsageFields,
} from "./anthropic-messages-usage";
import { readOpenaiChatUsage } from "./openai-chat-usage";
import { readResponsesUsage } from "./responses-usage";

const usage = { inputTokens: 60, outputTokens: 7, cacheReadTokens: 40, cacheWriteTokens: 0 };

describe("usage readers", () => {
  it("each reader inverts its wire format's renderer", () => {
    expect(readOpenaiChatUsage(renderOpenaiUsage(usage))).toEqual({
      type: "read",
      value: { usage, reasoningTokens: undefined },
    });
    expect(readOpenaiChatUsage(renderOpenaiUsage({ ...usage, cacheWriteTokens: 5 }))).toMatchObject({
      value: { usage: { ...usage, cacheWriteTokens: 5 } },
    });
    expect(readAnthropicUsage(renderAnthropicUsage({ ...usage, cacheWriteTokens: 5 }))).toEqual({
      type: "read",
      value: { ...usage, cacheWriteTokens: 5 },
    });
    expect(readResponsesUsage(renderResponsesUsage(usage, 3))).toEqual({
      type: "read",
      value: { usage, reasoningTokens: 3 },
    });
  });

  it("OpenAI prompt tokens include cached reads and writes; they are split out", () => {
    expect(
      readOpenaiChatUsage({
        prompt_tokens: 100,
        completion_tokens: 7,
        prompt_tokens_details: { cached_tokens: 40, cache_write_tokens: 10 },
        completion_tokens_details: { reasoning_tokens: 2 },
      }),
    ).toEqual({
      type: "read",
      value: {
        usage: { inputTokens: 50, outputTokens: 7, cacheReadTokens: 40, cacheWriteTokens: 10 },
        reasoningTokens: 2,
      },
    });
  });

  it("absent usage is absent; out-of-bounds, negative, fractional or inconsistent figures are refused", () => {
    expect(readOpenaiChatUsage(null).type).toBe("absent");
    expect(readOpenaiChatUsage(undefined).type).toBe("absent");
    for (const bad of [2 ** 31, 1e15, -1, 1.5, "7", Number.NaN])
      expect(readOpenaiChatUsage({ prompt_tokens: 1, completion_tokens: bad }).type).toBe("invalid");
    expect(
      readOpenaiChatUsage({ prompt_tokens: 5, prompt_tokens_details: { cached_tokens: 6 } }),
    ).toMatchObject({ type: "invalid", reason: expect.stringContaining("exceed") });
    expect(readAnthropicUsage({ input_tokens: -3 }).type).toBe("invalid");
    expect(readResponsesUsage({ input_tokens: 2, input_tokens_details: { cached_tokens: 3 } }).type).toBe(
      "invalid",
    );
  });

  it("an Anthropic stream's later figures replace earlier ones, field by field", () => {
    const start = readAnthropicUsageFields({
      input_tokens: 12,
      output_tokens: 1,
      cache_read_input_tokens: 4,
    });
    const delta = readAnthropicUsageFields({ output_tokens: 9 });
    if (start.type !== "read" || delta.type !== "read") throw new Error("unread");
    const merged = mergeAnthropicUsage(
      mergeAnthropicUsage(
        { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        start.value,
      ),
      delta.value,
    );
    expect(merged).toEqual({ inputTokens: 12, outputTokens: 9, cacheReadTokens: 4, cacheWriteTokens: 0 });
  });
});
