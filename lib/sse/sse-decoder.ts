import { createParser, type EventSourceMessage } from "eventsource-parser";

export type { EventSourceMessage };

export interface SseDecoder {
  /** Feeds raw bytes; chunks may split anywhere, including inside a UTF-8 sequence. */
  push(bytes: Uint8Array): void;
  /** Flushes a final frame that lacked its trailing blank line. */
  end(): void;
}

export interface SseDecoderHandlers {
  onEvent(message: EventSourceMessage): void;
  /** `: keep-alive` and other comment lines, for a relay that must keep them flowing. */
  onComment?(comment: string): void;
}

/**
 * The gateway's one SSE decoder (relay, billing tap and translation all read upstream
 * streams through it). Built on eventsource-parser, which already handles CR/LF/CRLF split
 * across chunks, comments, multi-line data and `retry:` fields.
 */
export function createSseDecoder(
  handlers: SseDecoderHandlers | ((message: EventSourceMessage) => void),
): SseDecoder {
  const { onEvent, onComment } = typeof handlers === "function" ? { onEvent: handlers } : handlers;
  const textDecoder = new TextDecoder();
  const parser = createParser({ onEvent, ...(onComment ? { onComment } : {}) });
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
