import { describe, expect, it } from "vitest";
import { encodeSseFrame } from "./sse";

describe("encodeSseFrame", () => {
  const text = (frame: Parameters<typeof encodeSseFrame>[0]) =>
    new TextDecoder().decode(encodeSseFrame(frame));

  it("writes event and data lines, one data line per input line", () => {
    expect(text({ event: "message_stop", data: '{"type":"message_stop"}' })).toBe(
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
    expect(text({ data: "a\nb" })).toBe("data: a\ndata: b\n\n");
  });

  it("rejects CR or LF in the event name, which could forge frames", () => {
    expect(() => encodeSseFrame({ event: "x\ndata: evil", data: "{}" })).toThrow(/CR or LF/);
  });
});
