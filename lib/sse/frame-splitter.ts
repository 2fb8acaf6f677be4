/**
 * Splits decoded SSE text into whole events (each returned with its terminating blank
 * line, so re-joining the frames reproduces the input exactly). Handles \n, \r\n and
 * events split across chunks.
 */
export class SseFrameSplitter {
  #buffer = "";

  push(text: string): string[] {
    this.#buffer += text;
    const frames: string[] = [];
    for (;;) {
      const boundary = findBoundary(this.#buffer);
      if (boundary === -1) break;
      frames.push(this.#buffer.slice(0, boundary));
      this.#buffer = this.#buffer.slice(boundary);
    }
    return frames;
  }

  /** Whatever is left when the stream ends without a final blank line. */
  flush(): string {
    const rest = this.#buffer;
    this.#buffer = "";
    return rest;
  }
}

function findBoundary(buffer: string): number {
  let best = -1;
  for (const separator of ["\n\n", "\r\n\r\n", "\r\r"]) {
    const index = buffer.indexOf(separator);
    if (index !== -1 && (best === -1 || index + separator.length < best)) best = index + separator.length;
  }
  return best;
}

/** The `event:` name and joined `data:` payload of one frame; comments are ignored. */
export function parseSseFrame(frame: string): { event: string | undefined; data: string | undefined } {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of frame.split(/\r\n|\r|\n/)) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  return { event, data: data.length > 0 ? data.join("\n") : undefined };
}
