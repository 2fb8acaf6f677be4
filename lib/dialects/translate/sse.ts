import { createParser, type EventSourceMessage } from "eventsource-parser";

const textEncoder = new TextEncoder();

/**
 * Encodes one SSE frame. JSON.stringify never emits raw newlines, but `event` is checked
 * because a CR/LF there would let a value forge extra frames (hono's writeSSE rule).
 */
export function encodeSseFrame(frame: { event?: string; data: string }): Uint8Array {
  if (frame.event !== undefined && /[\r\n]/.test(frame.event)) {
    throw new Error("SSE event name must not contain CR or LF");
  }
  const dataLines = frame.data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join("");
  const eventLine = frame.event === undefined ? "" : `event: ${frame.event}\n`;
  return textEncoder.encode(`${eventLine}${dataLines}\n`);
}

export function encodeJsonFrame(data: unknown, event?: string): Uint8Array {
  return encodeSseFrame(
    event === undefined ? { data: JSON.stringify(data) } : { event, data: JSON.stringify(data) },
  );
}

export interface SseDecoder {
  /** Feeds raw bytes; chunks may split anywhere, including inside a UTF-8 sequence. */
  push(bytes: Uint8Array): void;
  /** Flushes a final frame that lacked its trailing blank line. */
  end(): void;
}

/**
 * Byte-level SSE decoding on top of eventsource-parser, which already handles CR/LF/CRLF
 * split across chunks, comments (`: keep-alive`), multi-line data and `retry:` fields.
 */
export function createSseDecoder(onEvent: (message: EventSourceMessage) => void): SseDecoder {
  const textDecoder = new TextDecoder();
  const parser = createParser({ onEvent });
  return {
    push(bytes) {
      parser.feed(textDecoder.decode(bytes, { stream: true }));
    },
    end() {
      // A server that closes right after its last data line (no blank line) still meant that
      // frame; two newlines complete it, and are a no-op after a properly terminated frame.
      parser.feed(`${textDecoder.decode()}\n\n`);
    },
  };
}
