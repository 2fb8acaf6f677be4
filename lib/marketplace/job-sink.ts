import type { AbortHandle } from "../light-abort";

/**
 * Where a job's bytes go when they are not read as a Response: a web stream's controller is
 * one (the Response path), and the relay of a job another replica asked for is another, so the
 * agent's frames reach Redis without a stream in between.
 */
export interface JobFeed {
  enqueue(chunk: Uint8Array): void;
  close(): void;
  error(reason: Error): void;
  /** Room left before the agent is asked to pause, as a web stream counts it (negative: over). */
  readonly desiredSize: number | null;
}

export interface JobSink {
  /** The agent answered: its status and content type. `pull` is called when the feed has room again. */
  open(status: number, contentType: string, pull: () => void): JobFeed;
}

/**
 * Feeds a Response's body into a sink, read at the sink's pace: for transports that answer
 * with a Response (the HTTP double of an agent in tests) where the socket transport feeds
 * the sink itself.
 */
export async function feedResponse(response: Response, sink: JobSink, signal: AbortHandle): Promise<void> {
  let wake: (() => void) | undefined;
  const onAbort = () => wake?.();
  signal.addEventListener("abort", onAbort, { once: true });
  const feed = sink.open(response.status, response.headers.get("content-type") ?? "application/json", () =>
    wake?.(),
  );
  const reader = response.body?.getReader();
  if (reader === undefined) {
    feed.close();
    return;
  }
  try {
    for (;;) {
      while ((feed.desiredSize ?? 1) <= 0 && !signal.aborted)
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      if (signal.aborted) {
        await reader.cancel().catch(() => undefined);
        return;
      }
      const next = await reader.read();
      if (next.done) break;
      feed.enqueue(next.value);
    }
    feed.close();
  } catch (error) {
    feed.error(error instanceof Error ? error : new Error(String(error)));
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
