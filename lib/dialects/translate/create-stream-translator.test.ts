import { describe, expect, it } from "vitest";
import type { Dialect } from "./ir";
import { parseSseFrames, parseSseJson, readFixture, splitBytes, toCrlf, translateBytes } from "./testing";

const options = { model: "gateway-model", includeUsage: true };

/** Ids and timestamps are fresh per stream; everything else must not depend on chunking. */
function normalise(text: string): string {
  return text
    .replace(/msg_[0-9A-Za-z]{24}/g, "msg_ID")
    .replace(/chatcmpl-[0-9A-Za-z]{24}/g, "chatcmpl-ID")
    .replace(/"created":\d+/g, '"created":0');
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
