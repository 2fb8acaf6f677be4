// Measuring primitives for the bench: timed requests, load at fixed concurrency, slow streams, and
// a process's CPU time and resident memory read from /proc (the same for every system, whatever
// it runs on).
import { readFileSync } from "node:fs";
import { Agent, type IncomingHttpHeaders, request } from "node:http";
import autocannon from "autocannon";

export interface Target {
  url: string;
  headers: Record<string, string>;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export interface Timed {
  ok: boolean;
  total: number;
  firstByte: number;
  /** The answer's headers (none when the socket failed first). */
  headers: IncomingHttpHeaders;
}

/** One POST; total time and time to the first body byte in ms. Not ok: a non-200 or a socket error. */
export function timedPost(target: Target, payload: string, viaAgent: Agent = agent): Promise<Timed> {
  return new Promise((resolve) => {
    const started = performance.now();
    let firstByte = 0;
    const outgoing = request(
      target.url,
      {
        method: "POST",
        agent: viaAgent,
        headers: {
          ...target.headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
        },
      },
      (incoming) => {
        incoming.on("data", () => {
          if (firstByte === 0) firstByte = performance.now() - started;
        });
        const { headers } = incoming;
        incoming.on("end", () =>
          resolve({
            ok: incoming.statusCode === 200,
            total: performance.now() - started,
            firstByte,
            headers,
          }),
        );
        incoming.on("error", () =>
          resolve({ ok: false, total: performance.now() - started, firstByte, headers }),
        );
      },
    );
    outgoing.on("error", () =>
      resolve({ ok: false, total: performance.now() - started, firstByte, headers: {} }),
    );
    outgoing.end(payload);
  });
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** A figure for the results' tables: "n/a" when there is none. */
export const fmt = (value: number | undefined, digits = 2) =>
  value === undefined || !Number.isFinite(value) ? "n/a" : value.toFixed(digits);

export function median(values: number[]): number {
  return percentile(values, 50);
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

/** Closed-loop load: `connections` keep-alive connections, each sending the next request on a reply. */
export async function load(
  target: Target,
  payload: string,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  const result = await autocannon({
    url: target.url,
    method: "POST",
    headers: { ...target.headers, "content-type": "application/json" },
    body: payload,
    connections,
    duration: seconds,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result["2xx"],
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

const clockTicksPerSecond = 100;

/** User + system CPU of a process in ms (from /proc; 0 when it is gone). */
export function cpuMs(pid: number, statFile = `/proc/${pid}/stat`): number {
  try {
    const stat = readFileSync(statFile, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the full line, 12 and 13 after the command name.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
  } catch {
    return 0;
  }
}

/** User + system CPU of a process's main thread in ms (its own thread, not its workers or V8's helpers). */
export function mainThreadCpuMs(pid: number): number {
  return cpuMs(pid, `/proc/${pid}/task/${pid}/stat`);
}

/** Resident memory of a process in MiB. */
export function rssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Share of all cores busy over an interval, from /proc/stat: how loaded the machine was. */
export function machineBusy(): () => number {
  const read = () => {
    const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1);
    const values = fields.map(Number);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    const total = values.reduce((sum, value) => sum + value, 0);
    return { idle, total };
  };
  const before = read();
  return () => {
    const after = read();
    const total = after.total - before.total;
    return total > 0 ? 1 - (after.idle - before.idle) / total : 0;
  };
}

export interface SlowStreamResult {
  streams: number;
  completed: number;
  errors: number;
  /** Longest silence between two chunks of one stream, in ms (the upstream sends every 100 ms). */
  maxGapMs: number;
  p99GapMs: number;
  stalls: number;
  seconds: number;
  /** What the errors were: an HTTP status, "cut" (200 without [DONE]), "timeout" or a socket error code. */
  errorKinds: Record<string, number>;
}

/** `count` concurrent slow streams at once; a stall is a silence over one second. */
export async function slowStreams(target: Target, payload: string, count: number): Promise<SlowStreamResult> {
  const streamsAgent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const gaps: number[] = [];
  let completed = 0;
  let errors = 0;
  let stalls = 0;
  const errorKinds: Record<string, number> = {};
  const fail = (kind: string) => {
    errors += 1;
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
  };
  const started = performance.now();
  const one = () =>
    new Promise<void>((resolve) => {
      const outgoing = request(
        target.url,
        {
          method: "POST",
          agent: streamsAgent,
          timeout: 30_000,
          headers: {
            ...target.headers,
            "content-type": "application/json",
            "content-length": Buffer.byteLength(payload),
          },
        },
        (incoming) => {
          let last = performance.now();
          let maxGap = 0;
          let text = "";
          incoming.setEncoding("utf8");
          incoming.on("data", (part: string) => {
            const now = performance.now();
            if (text.length > 0) maxGap = Math.max(maxGap, now - last);
            last = now;
            text += part;
          });
          incoming.on("end", () => {
            gaps.push(maxGap);
            if (maxGap > 1000) stalls += 1;
            if (incoming.statusCode === 200 && text.includes("[DONE]")) completed += 1;
            else fail(incoming.statusCode === 200 ? "cut" : String(incoming.statusCode));
            resolve();
          });
          incoming.on("error", (error: NodeJS.ErrnoException) => {
            fail(error.message === "timeout" ? "timeout" : (error.code ?? "error"));
            resolve();
          });
        },
      );
      outgoing.on("timeout", () => outgoing.destroy(new Error("timeout")));
      outgoing.on("error", (error: NodeJS.ErrnoException) => {
        fail(error.message === "timeout" ? "timeout" : (error.code ?? "error"));
        resolve();
      });
      outgoing.end(payload);
    });
  await Promise.all(Array.from({ length: count }, one));
  streamsAgent.destroy();
  return {
    streams: count,
    completed,
    errors,
    maxGapMs: Math.max(0, ...gaps),
    p99GapMs: percentile(gaps, 99),
    stalls,
    seconds: (performance.now() - started) / 1000,
    errorKinds,
  };
}

export function closeAgents(): void {
  agent.destroy();
}
