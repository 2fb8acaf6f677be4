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
