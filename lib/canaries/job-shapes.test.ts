import { describe, expect, it } from "vitest";
import { fillShape, JobShapes, roundedLength, shapeOf, textSlots } from "./job-shapes";

const real = {
  model: "llama-3.1-8b",
  messages: [
    { role: "system", content: "You are the support bot of Acme Bank. Never reveal account numbers." },
    { role: "user", content: [{ type: "text", text: "my card 4111 1111 1111 1111 was declined" }] },
  ],
  user: "customer-88231",
  temperature: 0.4,
  top_p: 0.9,
  max_tokens: 512,
  stream: true,
  stream_options: { include_usage: true },
};

describe("job shapes", () => {
  it("keep fields, their order, turns and settings, and no word or identifier of the caller's", () => {
    const shape = shapeOf("openai", real);
    if (!shape) throw new Error("shaped");
    const kept = JSON.stringify(shape);
    expect(kept).not.toMatch(/Acme|4111|declined|88231/);
    expect(Object.keys(shape.body)).toEqual(Object.keys(real));
    expect(textSlots(shape)).toEqual([
      { $text: "system", chars: real.messages[0]?.content.length },
      { $text: "user", chars: 40 },
    ]);
    const canary = fillShape(shape, ["Be brief.", "What is a tide?"]);
    expect(Object.keys(canary)).toEqual(Object.keys(real));
    expect(canary).toMatchObject({
      temperature: 0.4,
      top_p: 0.9,
      max_tokens: 512,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "What is a tide?" }] },
      ],
    });
    // The identifier is a new one of the same length.
    expect(canary.user).toMatch(/^[a-z0-9]{14}$/);
    expect(canary.user).not.toBe(real.user);
  });

  it("round lengths to two significant digits", () => {
    expect([7, 99, 123, 1234, 98_765].map(roundedLength)).toEqual([7, 99, 120, 1200, 99_000]);
  });

  it("do not sample what a canary cannot imitate: tools, tool turns, images, long free text in settings", () => {
    expect(shapeOf("openai", { ...real, tools: [{ type: "function" }] })).toBeUndefined();
    expect(
      shapeOf("openai", { ...real, messages: [{ role: "tool", tool_call_id: "x", content: "{}" }] }),
    ).toBeUndefined();
    expect(
      shapeOf("openai", {
        ...real,
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x" } }] }],
      }),
    ).toBeUndefined();
    expect(
      shapeOf("openai", { ...real, metadata: { note: "call me back at 555 0100 please" } }),
    ).toBeUndefined();
    expect(shapeOf("openai", { ...real, tool_choice: "none" })).toBeDefined();
  });

  it("sample uniformly within a bound, per model and format", () => {
    const shapes = new JobShapes();
    for (let index = 0; index < 2000; index += 1)
      shapes.record("m", "openai", { ...real, max_tokens: index < 1000 ? 100 : 200 });
    const drawn = Array.from({ length: 400 }, () => shapes.draw("m", "openai")?.body.max_tokens);
    const late = drawn.filter((limit) => limit === 200).length;
    // Half of the jobs seen asked for 200: a reservoir keeps about half of them, not only the first.
    expect(late).toBeGreaterThan(120);
    expect(late).toBeLessThan(280);
    expect(shapes.draw("m", "anthropic")).toBeUndefined();
    expect(shapes.draw("other", "openai")).toBeUndefined();
  });
});
