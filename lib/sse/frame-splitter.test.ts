import { describe, expect, it } from "vitest";
import { parseSseFrame, SseFrameSplitter } from "./frame-splitter";

describe("SseFrameSplitter", () => {
  const stream = 'event: message_start\ndata: {"a":1}\n\n: comment\n\ndata: [DONE]\n\n';

  it("re-joins to the exact input however the chunks are cut", () => {
    for (let size = 1; size <= stream.length; size += 3) {
      const splitter = new SseFrameSplitter();
      const frames: string[] = [];
      for (let offset = 0; offset < stream.length; offset += size)
        frames.push(...splitter.push(stream.slice(offset, offset + size)));
      expect(frames.join("") + splitter.flush()).toBe(stream);
      expect(frames).toHaveLength(3);
    }
  });

  it("handles CRLF frames", () => {
    const splitter = new SseFrameSplitter();
    expect(splitter.push("data: 1\r\n\r\ndata: 2\r\n\r\n")).toEqual(["data: 1\r\n\r\n", "data: 2\r\n\r\n"]);
  });

  it("parses event names and joins multi-line data; comments carry no data", () => {
    expect(parseSseFrame("event: ping\ndata: {}\n\n")).toEqual({ event: "ping", data: "{}" });
    expect(parseSseFrame("data: a\ndata: b\n\n")).toEqual({ event: undefined, data: "a\nb" });
    expect(parseSseFrame(": keep-alive\n\n")).toEqual({ event: undefined, data: undefined });
  });
});
