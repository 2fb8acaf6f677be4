import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { afterAnswer } from "./after-answer";
import { RequestDigest } from "./request-receipt";

describe("afterAnswer", () => {
  it("runs after the answer's microtasks and before the next request is read, in order, past a throw", async () => {
    const seen: string[] = [];
    const server = createServer((incoming, outgoing) => {
      incoming.resume();
      incoming.once("end", () => {
        const id = incoming.url ?? "";
        seen.push(`read ${id}`);
        afterAnswer(() => seen.push(`bookkeeping ${id}`));
        afterAnswer(() => {
          throw new Error("a failing record");
        });
        afterAnswer(() => seen.push(`more ${id}`));
        // The answer is written a few awaits later, as a settled request's is.
        void Promise.resolve()
          .then(() => Promise.resolve())
          .then(() => {
            seen.push(`answered ${id}`);
            outgoing.end("ok");
          });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const ask = (path: string) =>
      new Promise<void>((resolve, reject) => {
        const sent = request({ host: "127.0.0.1", port, path, method: "POST", agent: false }, (answer) => {
          answer.resume();
          answer.once("end", resolve);
        });
        sent.once("error", reject);
        sent.end("{}");
      });
    await ask("/1");
    await ask("/2");
    server.close();
    expect(seen).toEqual([
      "read /1",
      "answered /1",
      "bookkeeping /1",
      "more /1",
      "read /2",
      "answered /2",
      "bookkeeping /2",
      "more /2",
    ]);
  });
});

describe("RequestDigest", () => {
  it("is the body's SHA-256, the same worked out soon or when asked", async () => {
    expect(new RequestDigest("").hex).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    const body = '{"model":"gpt-4o-mini","messages":[]}';
    const early = new RequestDigest(body);
    early.soon();
    await new Promise((resolve) => setImmediate(resolve));
    expect(early.hex).toBe("2a4f8b392a15d0c633671f79c1eeb9325ee0d744aa9441ccaf224c5753de481c");
    expect(new RequestDigest(body).hex).toBe(early.hex);
  });
});
