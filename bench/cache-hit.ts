// npm run bench -- --only cache-hit (issue 33): what a response-cache hit costs. One gateway as
// `npm start` runs it on PGlite (pages off); every kind of request measured in one phase, request
// by request in an order rotated each round, so a burst of load on this shared machine falls on
// all of them alike (a streamed phase run after the whole one once read a burst as a streamed
// hit's cost: its upstream misses slowed tenfold with it).
import { cpus, loadavg } from "node:os";
import { cpuMs, fmt, percentile, type Target, type Timed, timedPost } from "./measure";
import { directSystem, startGateway, startUpstream } from "./systems";

interface Probe {
  key: string;
  label: string;
  target: Target;
  payload: string;
  /** A hit row counts an answer that is not `X-Pod-Cache: hit` as a failure (a miss is no hit's figure). */
  hit: boolean;
}

interface Samples {
  totals: number[];
  failures: number;
}

const message = { role: "user", content: "Say hello" };
const chat = { model: "gpt-4o-mini", max_tokens: 16, temperature: 0, messages: [message] };
const messages = { ...chat };
const responses = { model: "gpt-4o-mini", max_output_tokens: 16, temperature: 0, input: "Say hello" };
const streamed = (body: object) => JSON.stringify({ ...body, stream: true });

/** Concurrency 1, the probes request by request, their order rotated each round. */
async function interleaved(probes: Probe[], count: number, warmup: number): Promise<Map<string, Samples>> {
  const results = new Map<string, Samples>(probes.map((probe) => [probe.key, { totals: [], failures: 0 }]));
  for (let round = 0; round < warmup + count; round += 1) {
    for (let offset = 0; offset < probes.length; offset += 1) {
      const probe = probes[(round + offset) % probes.length] as Probe;
      const timed = await timedPost(probe.target, probe.payload);
      if (round < warmup) continue;
      const samples = results.get(probe.key) as Samples;
      if (!served(probe, timed)) samples.failures += 1;
      else samples.totals.push(timed.total);
    }
  }
  return results;
}

const served = (probe: Probe, timed: Timed) =>
  timed.ok && (!probe.hit || timed.headers["x-pod-cache"] === "hit");

/** Waits (at most 5 s) until the process is idle, so work left from before is not counted next. */
async function idle(pid: number): Promise<void> {
  for (let tries = 0; tries < 20; tries += 1) {
    const before = cpuMs(pid);
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (cpuMs(pid) - before <= 10) return;
  }
}

/** The gateway's CPU per request of one probe run alone, in ms (its process, PGlite's worker included). */
async function cpuPerRequest(pid: number, probe: Probe, count: number): Promise<number> {
  await idle(pid);
  const before = cpuMs(pid);
  let answered = 0;
  for (let index = 0; index < count; index += 1)
    if (served(probe, await timedPost(probe.target, probe.payload))) answered += 1;
  return (cpuMs(pid) - before) / Math.max(1, answered);
}

/**
 * Runs the scenario and returns its section for bench/results.md. A hit's gateway time is its
 * latency minus the direct round trip to the instant upstream (an HTTP exchange with a server that
 * does nothing, whole: the direct stream's five writes cost more than one, which would flatter a
 * streamed hit), both p50 over the same rounds.
 */
export async function cacheHitRun(config: { count: number; warmup: number }): Promise<string> {
  const started = new Date();
  const loadBefore = loadavg();
  const upstream = await startUpstream();
  const gateway = await startGateway({
    upstreamOrigin: upstream.origin,
    env: { POD_PAGES: "off" },
    key: "cache-hit",
    label: "this gateway",
  });
  const direct = directSystem(upstream).target;
  const proxied = gateway.target.url.replace(/\/v1\/chat\/completions$/, "");
  const at = (path: string, cache: boolean): Target => ({
    url: `${proxied}${path}`,
    headers: cache ? { "x-pod-cache": "on" } : {},
  });
  const probe = (key: string, label: string, target: Target, payload: string, hit = false): Probe => ({
    key,
    label,
    target,
    payload,
    hit,
  });
  const probes = [
    probe("direct", "direct to the fake, whole", direct, JSON.stringify(chat)),
    probe("direct-stream", "direct to the fake, streamed", direct, streamed(chat)),
    probe(
      "hit",
      "hit, chat completions, whole",
      at("/v1/chat/completions", true),
      JSON.stringify(chat),
      true,
    ),
    probe(
      "hit-stream",
      "hit, chat completions, streamed",
      at("/v1/chat/completions", true),
      streamed(chat),
      true,
    ),
    probe(
      "messages",
      "hit, Anthropic messages, whole",
      at("/v1/messages", true),
      JSON.stringify(messages),
      true,
    ),
    probe(
      "messages-stream",
      "hit, Anthropic messages, streamed",
      at("/v1/messages", true),
      streamed(messages),
      true,
    ),
    probe(
      "responses",
      "hit, Responses (stored), whole",
      at("/v1/responses", true),
      JSON.stringify(responses),
      true,
    ),
    probe(
      "responses-stream",
      "hit, Responses (stored), streamed",
      at("/v1/responses", true),
      streamed(responses),
      true,
    ),
    probe(
      "responses-unstored",
      "hit, Responses with store: false, whole",
      at("/v1/responses", true),
      JSON.stringify({ ...responses, store: false }),
      true,
    ),
    probe(
      "responses-unstored-stream",
      "hit, Responses with store: false, streamed",
      at("/v1/responses", true),
      streamed({ ...responses, store: false }),
      true,
    ),
    probe(
      "responses-miss",
      "no cache (to the upstream), Responses (stored), whole",
      at("/v1/responses", false),
      JSON.stringify(responses),
    ),
    probe(
      "responses-miss-unstored",
      "no cache (to the upstream), Responses with store: false, whole",
      at("/v1/responses", false),
      JSON.stringify({ ...responses, store: false }),
    ),
    probe(
      "miss",
      "no cache (to the upstream), chat, whole",
      at("/v1/chat/completions", false),
      JSON.stringify(chat),
    ),
    probe(
      "miss-stream",
      "no cache (to the upstream), chat, streamed",
      at("/v1/chat/completions", false),
      streamed(chat),
    ),
  ];
  process.stdout.write(`concurrency 1, ${probes.length} kinds of request interleaved...\n`);
  const results = await interleaved(probes, config.count, config.warmup);
  const samples = (key: string) => results.get(key) as Samples;
  const p = (key: string, rank: number) => percentile(samples(key).totals, rank);
  const added = (key: string) => p(key, 50) - p("direct", 50);
  const byKey = new Map(probes.map((entry) => [entry.key, entry]));
  const cpu = async (key: string) => cpuPerRequest(gateway.pid, byKey.get(key) as Probe, config.count);
  const cpuHit = await cpu("hit");
  const cpuStreamedHit = await cpu("hit-stream");
  const cpuMiss = await cpu("miss");
  const loadAfter = loadavg();
  const hitAdded = added("hit");
  const streamedAdded = added("hit-stream");
  const verdict = (value: number) => (value < 1 ? "met" : "not met");
  return [
    `### Run ${started.toISOString()}: cache hits only (npm run bench -- --only cache-hit)`,
    "",
    `Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}). Machine load average ${loadBefore[0]?.toFixed(2)} before, ${loadAfter[0]?.toFixed(2)} after (other sessions' work included). Concurrency 1: ${config.count} rounds after ${config.warmup} warm-up rounds, each round every kind of request below once, in an order rotated each round. One gateway on PGlite, pages off, balance leases on (the default); the hits ask with \`X-Pod-Cache: on\`, and an answer without \`X-Pod-Cache: hit\` counts as a failure. Added p50 is the row's p50 minus the direct whole round trip's, over the same rounds.`,
    "",
    "| request | p50 ms | p99 ms | added p50 ms | failures |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...probes.map(
      (entry) =>
        `| ${entry.label} | ${fmt(p(entry.key, 50), 3)} | ${fmt(p(entry.key, 99), 3)} | ${entry.key === "direct" ? "" : fmt(added(entry.key), 3)} | ${samples(entry.key).failures} |`,
    ),
    "",
    `A hit's gateway time, p50: **${fmt(hitAdded, 3)} ms whole, ${fmt(streamedAdded, 3)} ms streamed** (goal < 1 ms: ${verdict(hitAdded)}, ${verdict(streamedAdded)}); a streamed hit costs ${fmt(streamedAdded - hitAdded, 3)} ms more than a whole one. A request without the cache adds ${fmt(added("miss"), 3)} ms p50 (the upstream's exchange included). Gateway CPU per request, ${config.count} requests of each run alone: **${fmt(cpuHit, 3)} ms per whole hit, ${fmt(cpuStreamedHit, 3)} ms per streamed hit**, ${fmt(cpuMiss, 3)} ms per request to the upstream.`,
    "",
  ].join("\n");
}
