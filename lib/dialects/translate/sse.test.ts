import { describe, expect, it } from "vitest";
import { createSseDecoder, encodeSseFrame } from "./sse";
import { splitBytes } from "./testing";

function decodeAll(pieces: Uint8Array[]) {
  const messages: Array<{ event: string | undefined; data: string }> = [];
  const decoder = createSseDecoder((message) => messages.push({ event: message.event, data: message.data }));
  for (const piece of pieces) decoder.push(piece);
  decoder.end();
  return messages;
}

const encode = (text: string) => new TextEncoder().encode(text);

describe("createSseDecoder", () => {
  const wire =
    ': keep-alive\r\nretry: 3000\r\nevent: message_start\r\ndata: {"a":"é€😀"}\r\n\r\nevent: ping\ndata: {"type": "ping"}\n\ndata: line1\rdata: line2\r\r';
  const expected = [
    { event: "message_start", data: '{"a":"é€😀"}' },
    { event: "ping", data: '{"type": "ping"}' },
    { event: undefined, data: "line1\nline2" },
  ];

  it.each([1, 2, 3, 5, 64])(
    "handles CRLF, CR, comments, retry and multi-byte text split every %i bytes",
    (size) => {
      expect(decodeAll(splitBytes(encode(wire), size))).toEqual(expected);
    },
  );

  it("completes a final frame that lacks its blank line", () => {
    expect(decodeAll([encode("data: one\n\ndata: [DONE]\n")])).toEqual([
      { event: undefined, data: "one" },
      { event: undefined, data: "[DONE]" },
    ]);
    expect(decodeAll([encode("data: tail")])).toEqual([{ event: undefined, data: "tail" }]);
  });
});

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
