import { fork } from "node:child_process";
import { createClient } from "@redis/client";
import { percentile } from "./measure";

export interface RoundTrip {
  p50: number;
  p99: number;
}

/**
 * The floor under any cross-replica request: one message published to another Node process
 * through Redis pub/sub and published back, as a job goes to the agent's replica and its answer
 * returns, with nothing else done on either side. Sequential, one at a time.
 */
export async function redisRoundTrip(url: string, count: number): Promise<RoundTrip> {
  const inbound = `bench-echo-in-${process.pid}`;
  const outbound = `bench-echo-out-${process.pid}`;
  const echo = fork("bench/redis-echo.mjs", [url, inbound, outbound], { stdio: "ignore" });
  const publisher = createClient({ url });
  const subscriber = createClient({ url });
  try {
    await new Promise<void>((resolve, reject) => {
      echo.once("message", () => resolve());
      echo.once("exit", (code) => reject(new Error(`the Redis echo process exited with ${code}`)));
    });
    await Promise.all([publisher.connect(), subscriber.connect()]);
    let heard: () => void = () => undefined;
    await subscriber.subscribe(outbound, () => heard());
    // About the size of a job message (a short chat request and its routing fields).
    const message = "x".repeat(400);
    const times: number[] = [];
    for (let index = 0; index < count + 50; index += 1) {
      const started = performance.now();
      await new Promise<void>((resolve) => {
        heard = resolve;
        publisher.publish(inbound, message).catch(() => undefined);
      });
      if (index >= 50) times.push(performance.now() - started);
    }
    return { p50: percentile(times, 50), p99: percentile(times, 99) };
  } finally {
    echo.kill();
    await Promise.all([publisher.close(), subscriber.close()]).catch(() => undefined);
  }
}
