import { createStreamTranslator } from "../create-stream-translator";

/** Test-only helpers for the Responses codec. */

/** A Responses request body: the caller's request the codec echoes and maps tools back for. */
export function requestFor(request: Record<string, unknown>): Record<string, unknown> {
  return { model: "gpt-4o-mini", input: "hi", ...request };
}

/** Upstream SSE of dialect `from` → the Responses stream a caller of `request` reads. */
export function responsesTranslator(
  request: Record<string, unknown>,
  from: "openai" | "anthropic" = "openai",
) {
  return createStreamTranslator(from, "responses", {
    model: String(request.model),
    includeUsage: false,
    callerRequest: request,
  });
}

/** A chat.completion.chunk SSE body from delta/finish/usage parts, ending in [DONE] unless told not to. */
export function chatSse(
  chunks: Array<{ delta?: Record<string, unknown>; finish?: string; usage?: Record<string, unknown> }>,
  options: { done?: boolean } = {},
): string {
  const frames = chunks.map(({ delta, finish, usage }) => {
    const choices = delta || finish ? [{ index: 0, delta: delta ?? {}, finish_reason: finish ?? null }] : [];
    const body = {
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      model: "gpt-4o-mini",
      choices,
      ...(usage ? { usage } : {}),
    };
    return `data: ${JSON.stringify(body)}\n\n`;
  });
  return frames.join("") + (options.done === false ? "" : "data: [DONE]\n\n");
}

export function bytesStream(text: string, pieceSize = Number.POSITIVE_INFINITY): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      for (let offset = 0; offset < bytes.length; offset += Math.min(pieceSize, bytes.length))
        controller.enqueue(bytes.subarray(offset, offset + pieceSize));
      controller.close();
    },
  });
}

export interface ParsedEvent {
  event: string | undefined;
  data: Record<string, unknown>;
}

/** Splits Responses SSE text into its events (`event:` line and JSON data). */
export function parseEvents(text: string): ParsedEvent[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n");
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}
