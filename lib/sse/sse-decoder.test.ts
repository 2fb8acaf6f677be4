import { describe, expect, it } from "vitest";
import { splitBytes } from "../dialects/translate/testing";
import { createSseDecoder } from "./sse-decoder";

function decodeAll(pieces: Uint8Array[]) {
  const messages: Array<{ event: string | undefined; data: string }> = [];
  const comments: string[] = [];
  const decoder = createSseDecoder({
    onEvent: (message) => messages.push({ event: message.event, data: message.data }),
    onComment: (comment) => comments.push(comment),
  });
  for (const piece of pieces) decoder.push(piece);
  decoder.end();
  return { messages, comments };
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
      const { messages, comments } = decodeAll(splitBytes(encode(wire), size));
      expect(messages).toEqual(expected);
      expect(comments).toEqual(["keep-alive"]);
    },
  );

  it("completes a final frame that lacks its blank line", () => {
    expect(decodeAll([encode("data: one\n\ndata: [DONE]\n")]).messages).toEqual([
      { event: undefined, data: "one" },
      { event: undefined, data: "[DONE]" },
    ]);
    expect(decodeAll([encode("data: tail")]).messages).toEqual([{ event: undefined, data: "tail" }]);
  });
});
