// npm run bench: this gateway (billing on) side by side with its peers in one run, systems
// alternated so each sees the same machine: direct to an instant fake upstream, a bare node:http +
// undici proxy, Portkey's open-source gateway, and this gateway as `npm start` runs it on the
// embedded PGlite and on Postgres. Prints the issue's ratios and writes bench/results.md and
// bench/results.svg. Options: --soak (10 minutes at 50 connections per gateway, RSS over time),
// --quick (a shorter run for development), --journals (this gateway on Postgres with the settlement
// journal shared in the database against the local file journal, to price the hot path's insert),
// --only cross-replica (just the issue-20 rows: two replicas on one Postgres and one Redis, an
// instant agent on the first, at concurrency 1; pages off, so no build is needed), --only cache-hit
// (issue 33, bench/cache-hit.ts: response-cache hits in each wire format, whole and streamed,
// against the direct upstream and a request without the cache, and the CPU a hit costs),
// --only latency (issue 34: the concurrency-1 phase alone, direct, the bare proxy and this gateway
// on PGlite and, when it answers, Postgres, pages off; prints the added p50 and TTFB p50, each
// process's main-thread CPU a whole request, and, inside each gateway, a request's time with its
// event loop's active and idle parts (bench/probe.mjs); writes nothing;
// with BENCH_AB_DIR=<another checkout> also that checkout's gateway on both databases, interleaved with the rest:
// a before/after of a hot-path change in one run), --only throughput (issue 34: the 50-connection
// rounds alone, the bare proxy and this gateway on PGlite and Postgres, pages off, systems alternated;
// prints each round's req/s and CPU a request, the main thread's apart; writes nothing; with
// BENCH_AB_DIR also that checkout's gateway on both databases).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { cacheHitRun } from "./cache-hit";
import {
  closeAgents,
  cpuMs,
  fmt,
  type LoadResult,
  load,
  machineBusy,
  mainThreadCpuMs,
  median,
  percentile,
  rssMiB,
  type SlowStreamResult,
  slowStreams,
  timedPost,
} from "./measure";
import { renderPlot } from "./plot";
import { type RoundTrip, redisRoundTrip } from "./redis-round-trip";
import {
  directSystem,
  ensureFreshBuild,
  type GatewayOptions,
  type RequestTimings,
  type System,
  scratchPostgres,
  startBareProxy,
  startBenchRedis,
  startGateway,
  startPortkey,
  startReplicaPair,
  startUpstream,
  stopAll,
} from "./systems";

const args = new Set(process.argv.slice(2));
const quick = args.has("--quick");
const soak = args.has("--soak");
const journals = args.has("--journals");
const argv = process.argv.slice(2);
const onlyAt = argv.indexOf("--only");
const only = onlyAt >= 0 ? argv[onlyAt + 1] : argv.find((arg) => arg.startsWith("--only="))?.slice(7);
const alone = ["cross-replica", "cache-hit", "latency", "throughput"];
if (only !== undefined && !alone.includes(only))
  throw new Error(`--only ${only}: the scenarios that run alone are ${alone.join(", ")}`);
const config = {
  sequential: Number(process.env.BENCH_COUNT ?? (quick ? 300 : 1000)),
  warmup: quick ? 100 : 300,
  rounds: Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 3)),
  seconds: Number(process.env.BENCH_SECONDS ?? (quick ? 3 : 5)),
  connections: 50,
  slowStreams: Number(process.env.BENCH_STREAMS ?? (quick ? 200 : 1000)),
  soakMinutes: Number(process.env.BENCH_SOAK_MINUTES ?? 10),
};
const postgresBase = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const redisUrl = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

const message = { role: "user", content: "Say hello" };
const body = JSON.stringify({ model: "gpt-4o-mini", max_tokens: 16, messages: [message] });
const streamBody = JSON.stringify({
  model: "gpt-4o-mini",
  max_tokens: 16,
  stream: true,
  messages: [message],
});
const slowBody = JSON.stringify({
  model: "gpt-4o-mini",
  max_tokens: 64,
  stream: true,
  messages: [{ role: "user", content: "bench-slow" }],
});

interface Sequential {
  totals: number[];
  firstBytes: number[];
  failures: number;
}

/** Concurrency 1, systems interleaved request by request, order rotated each round. */
async function sequential(
  systems: System[],
  payload: string,
  count: number,
  warmup: number,
  onWarm?: () => Promise<void>,
) {
  const results = new Map<string, Sequential>(
    systems.map((system) => [system.key, { totals: [], firstBytes: [], failures: 0 }]),
  );
  for (let index = 0; index < warmup + count; index += 1) {
    if (index === warmup) await onWarm?.();
    for (let offset = 0; offset < systems.length; offset += 1) {
      const system = systems[(index + offset) % systems.length] as System;
      const timed = await timedPost(system.target, payload);
      if (index < warmup) continue;
      const entry = results.get(system.key) as Sequential;
      if (!timed.ok) entry.failures += 1;
      else {
        entry.totals.push(timed.total);
        entry.firstBytes.push(timed.firstByte);
      }
    }
  }
  return results;
}

interface ThroughputRound extends LoadResult {
  cpuPerRequest: number;
  statementsPerRequest?: number;
  roundTripsPerRequest?: number;
  busy: number;
}

async function cpuOf(system: System): Promise<number> {
  const pids = await system.pids();
  return pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
}

async function throughputRound(system: System): Promise<ThroughputRound> {
  const cpuBefore = await cpuOf(system);
  const statementsBefore = await system.statements?.();
  const busy = machineBusy();
  const result = await load(system.target, body, config.connections, config.seconds);
  const busyShare = busy();
  const cpuAfter = await cpuOf(system);
  const statementsAfter = await system.statements?.();
  const served = Math.max(1, result.requests);
  const round: ThroughputRound = {
    ...result,
    cpuPerRequest: (cpuAfter - cpuBefore) / served,
    busy: busyShare,
  };
  if (statementsBefore && statementsAfter) {
    round.statementsPerRequest = (statementsAfter.statements - statementsBefore.statements) / served;
    round.roundTripsPerRequest = (statementsAfter.roundTrips - statementsBefore.roundTrips) / served;
  }
  return round;
}

interface Row {
  system: System;
  plain: Sequential;
  streamed: Sequential;
  rounds: ThroughputRound[];
  /** Resident memory after the throughput rounds, and at the end (after the slow streams). */
  rss: number;
  rssEnd?: number;
  slow?: SlowStreamResult;
}

/**
 * Concurrency 1 (plain, then streamed), then the throughput rounds with the systems' order
 * rotated each round: a row per system, and how busy the machine was over the rounds.
 */
async function measure(systems: System[]): Promise<{ rows: Row[]; busy: number }> {
  process.stdout.write("concurrency 1...\n");
  const plain = await sequential(systems, body, config.sequential, config.warmup);
  const streamed = await sequential(systems, streamBody, Math.floor(config.sequential / 2), 50);
  process.stdout.write("throughput...\n");
  const rounds = new Map<string, ThroughputRound[]>(systems.map((system) => [system.key, []]));
  const busyAll = machineBusy();
  for (let round = 0; round < config.rounds; round += 1) {
    for (let offset = 0; offset < systems.length; offset += 1) {
      const system = systems[(round + offset) % systems.length] as System;
      rounds.get(system.key)?.push(await throughputRound(system));
    }
  }
  const busy = busyAll();
  const rows = systems.map((system) => ({
    system,
    plain: plain.get(system.key) as Sequential,
    streamed: streamed.get(system.key) as Sequential,
    rounds: rounds.get(system.key) as ThroughputRound[],
    rss: rssMiB(system.pid),
  }));
  return { rows, busy };
}

function summarize(rows: Row[]) {
  const direct = rows.find((row) => row.system.key === "direct") as Row;
  const added = (row: Row, p: number) => percentile(row.plain.totals, p) - percentile(direct.plain.totals, p);
  const addedFirstByte = (row: Row, p: number) =>
    percentile(row.streamed.firstBytes, p) - percentile(direct.streamed.firstBytes, p);
  const rps = (row: Row) => median(row.rounds.map((round) => round.rps));
  return { direct, added, addedFirstByte, rps };
}

function report(
  rows: Row[],
  meta: { started: Date; load: string; busy: number; notes: string[]; redisFloor?: RoundTrip },
) {
  const { added, addedFirstByte, rps } = summarize(rows);
  const byKey = (key: string) => rows.find((row) => row.system.key === key);
  const bare = byKey("bare");
  const portkey = byKey("portkey");
  const lines: string[] = [
    `### Run ${meta.started.toISOString()}`,
    "",
    `Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}). Machine load average ${meta.load}; all cores ${Math.round(meta.busy * 100)}% busy during the throughput rounds (this bench's own processes included).`,
    `Concurrency 1: ${config.sequential} non-streamed and ${Math.floor(config.sequential / 2)} streamed requests per system after ${config.warmup} warm-up rounds, systems interleaved request by request. Throughput: ${config.rounds} rounds of ${config.seconds} s at ${config.connections} connections per system, systems alternated; the median round is shown.`,
    ...meta.notes.map((note) => `- ${note}`),
    "",
    "| system | req/s, c=50 | p99 ms, c=50 | added p50 ms, c=1 | added p99 ms, c=1 | added TTFB p50 ms | added TTFB p99 ms | CPU ms/request | DB statements/request | DB round trips/request | RSS MiB idle / after throughput / at end | failures |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const row of rows) {
    const isDirect = row.system.key === "direct";
    const statements = row.rounds.map((round) => round.statementsPerRequest).filter((v) => v !== undefined);
    const roundTrips = row.rounds.map((round) => round.roundTripsPerRequest).filter((v) => v !== undefined);
    const failures = [
      row.plain.failures ? `${row.plain.failures} c=1` : "",
      row.streamed.failures ? `${row.streamed.failures} streamed c=1` : "",
      row.rounds.some((round) => round.errors) ? `${row.rounds.reduce((s, r) => s + r.errors, 0)} c=50` : "",
    ]
      .filter(Boolean)
      .join(", ");
    lines.push(
      `| ${row.system.label} | ${fmt(rps(row), 0)} | ${fmt(median(row.rounds.map((r) => r.p99)), 0)} | ${isDirect ? `(${fmt(percentile(row.plain.totals, 50), 3)} total)` : fmt(added(row, 50), 3)} | ${isDirect ? `(${fmt(percentile(row.plain.totals, 99), 3)} total)` : fmt(added(row, 99), 3)} | ${isDirect ? `(${fmt(percentile(row.streamed.firstBytes, 50), 3)} total)` : fmt(addedFirstByte(row, 50), 3)} | ${isDirect ? `(${fmt(percentile(row.streamed.firstBytes, 99), 3)} total)` : fmt(addedFirstByte(row, 99), 3)} | ${fmt(median(row.rounds.map((r) => r.cpuPerRequest)), 3)} | ${statements.length ? fmt(median(statements as number[]), 2) : ""} | ${roundTrips.length ? fmt(median(roundTrips as number[]), 2) : ""} | ${row.system.idleRss === undefined ? "" : `${fmt(row.system.idleRss, 0)} / `}${fmt(row.rss, 0)} / ${fmt(row.rssEnd, 0)} | ${failures || "0"} |`,
    );
  }
  lines.push("");
  const gateways = rows.filter((row) => row.system.key.startsWith("gateway"));
  if (gateways.length && bare) {
    const mark = (ok: boolean) => (ok ? "met" : "not met");
    lines.push(
      "Goals (issue 34: close to the floor): added p50 and added TTFB p50 at concurrency 1 within the bare proxy's + 0.4 ms; throughput at least 0.45 of the bare proxy's; RSS at the end at most 1.5x Portkey's on Postgres, 2.5x on PGlite.",
      "",
      "| gateway | added p50 minus bare proxy's, ms (goal <= 0.4) | added TTFB p50 minus bare proxy's, ms (goal <= 0.4) | throughput / bare proxy (goal >= 0.45) | RSS at end / Portkey's | throughput / Portkey |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
    );
    for (const row of gateways) {
      const latency = added(row, 50) - added(bare, 50);
      const firstByte = addedFirstByte(row, 50) - addedFirstByte(bare, 50);
      const versusBare = rps(row) / rps(bare);
      const memory = (row.rssEnd ?? Number.NaN) / (portkey?.rssEnd ?? Number.NaN);
      const memoryGoal = row.system.key === "gateway-postgres" ? 1.5 : 2.5;
      const versusPortkey = portkey ? rps(row) / rps(portkey) : Number.NaN;
      lines.push(
        `| ${row.system.label} | ${fmt(latency, 3)} (${mark(latency <= 0.4)}) | ${fmt(firstByte, 3)} (${mark(firstByte <= 0.4)}) | ${fmt(versusBare)} (${mark(versusBare >= 0.45)}) | ${fmt(memory)} (goal <= ${memoryGoal}: ${mark(memory <= memoryGoal)}) | ${fmt(versusPortkey)} |`,
      );
    }
    lines.push("");
  }
  const own = byKey("market-own");
  const other = byKey("market-other");
  if (own && other) {
    const p = (row: Row, percentileRank: number) => percentile(row.plain.totals, percentileRank);
    const firstByte = (row: Row) => percentile(row.streamed.firstBytes, 50);
    const addedP50 = p(other, 50) - p(own, 50);
    lines.push(
      "Cross-replica (issue 20): the same marketplace request (an agent answering at once) sent to the replica holding the agent's WebSocket, and to a second replica that hands it over through Redis pub/sub.",
      "",
      "| what the second replica adds | p50 ms, c=1 (goal <= 1) | p99 ms, c=1 | TTFB p50 ms, streamed |",
      "| --- | ---: | ---: | ---: |",
      `| through another replica minus on the agent's own | ${fmt(addedP50, 3)} (${addedP50 <= 1 ? "met" : "not met"}) | ${fmt(p(other, 99) - p(own, 99), 3)} | ${fmt(firstByte(other) - firstByte(own), 3)} |`,
      "",
      ...(meta.redisFloor ? [floorLine(meta.redisFloor), ""] : []),
    );
  }
  const slow = rows.filter((row) => row.slow);
  if (slow.length) {
    lines.push(
      `Slow streams: ${config.slowStreams} concurrent streams of 20 chunks 100 ms apart, per system in turn (a stall is a silence over 1 s).`,
      "",
      "| system | completed | errors | stalls | max gap ms | p99 of per-stream max gap, ms | wall s |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    );
    for (const row of slow) {
      const s = row.slow as SlowStreamResult;
      lines.push(
        `| ${row.system.label} | ${s.completed}/${s.streams} | ${s.errors}${
          s.errors
            ? ` (${Object.entries(s.errorKinds)
                .map(([kind, n]) => `${kind}: ${n}`)
                .join(", ")})`
            : ""
        } | ${s.stalls} | ${fmt(s.maxGapMs, 0)} | ${fmt(s.p99GapMs, 0)} | ${fmt(s.seconds, 1)} |`,
      );
    }
    lines.push("");
  }
  return lines.join("\n");
}

const runsMarker = "<!-- runs: newest first; npm run bench adds one here and keeps five -->";
const notesStart = "<!-- notes -->";
const notesEnd = "<!-- /notes -->";

/** The ISO time in a section's heading (`### Run 2026-…Z`, `### Soak 2026-…Z`). */
function startedAt(part: string): string {
  return /^### \w+ (\d{4}-\d\d-\d\dT[\d:.]+Z)/.exec(part)?.[1] ?? "";
}

function writeResults(section: string): void {
  const path = "bench/results.md";
  const previous = existsSync(path) ? readFileSync(path, "utf8") : "";
  const notes = previous.includes(notesStart)
    ? previous.slice(previous.indexOf(notesStart), previous.indexOf(notesEnd) + notesEnd.length)
    : `${notesStart}\n${notesEnd}`;
  const parts = previous.includes(runsMarker)
    ? previous
        .slice(previous.indexOf(runsMarker) + runsMarker.length)
        .split(/\n(?=### (?:Run|Soak) )/)
        .map((part) => part.trim())
    : [];
  // Five runs are kept, and the newest soak besides them (a run used to push it out).
  const isSoak = section.startsWith("### Soak ");
  const runs = parts.filter((part) => part.startsWith("### Run ")).slice(0, isSoak ? 5 : 4);
  const soakKept = isSoak ? [] : parts.filter((part) => part.startsWith("### Soak ")).slice(0, 1);
  const earlier = [...runs, ...soakKept].sort((a, b) => startedAt(b).localeCompare(startedAt(a)));
  const text = [
    "# Benchmark results",
    "",
    "`npm run bench` (bench/run.ts) measures, side by side in one run, an instant OpenAI-format fake upstream reached directly, a bare node:http + undici proxy (the floor any Node gateway pays), Portkey's open-source gateway from npm, and this gateway with billing on, started the way `npm start` runs it (scripts/start.mjs: server.ts precompiled by esbuild, pages on, from a fresh build: Next is loaded on the first page request, which the bench does not make) on the embedded PGlite (a fresh file-backed data directory, the production default) and on Postgres (a scratch database). Every system is its own process on 127.0.0.1 and the systems are alternated. Added latency is a system's percentile minus the direct percentile at concurrency 1; CPU per request counts the system's process and, for Postgres, the server processes serving its connections; database statements are counted inside the gateway process (bench/probe.mjs). The plot shows the newest run.",
    "",
    "![throughput and added latency per system](results.svg)",
    "",
    notes,
    "",
    "## Runs",
    "",
    runsMarker,
    "",
    section.trim(),
    "",
    ...earlier.flatMap((part) => [part, ""]),
  ].join("\n");
  writeFileSync(path, text);
}

interface SoakSamples {
  rss: number[];
  rps: number[];
  /** MiB live after a full collection: after the first slice and at the end. */
  heap: number[];
  errors: number;
}

/** Idle time before the soak's live-heap reading: a few lease write windows and a journal commit. */
const liveHeapPauseMs = 3_000;

async function soakRun(gateways: System[]): Promise<string> {
  const sliceSeconds = 30;
  const slices = Math.ceil((config.soakMinutes * 60) / sliceSeconds);
  const samples = new Map<string, SoakSamples>(
    gateways.map((system) => [system.key, { rss: [], rps: [], heap: [], errors: 0 }]),
  );
  for (let slice = 0; slice < slices; slice += 1) {
    for (const system of gateways) {
      const result = await load(system.target, body, config.connections, sliceSeconds);
      const entry = samples.get(system.key) as SoakSamples;
      entry.rss.push(rssMiB(system.pid));
      entry.rps.push(result.rps);
      entry.errors += result.errors;
      // After the RSS sample: the full collection is the leak check's, not part of what RSS shows.
      // A pause first, so what the last requests left in flight (settlements still being
      // written, a lease's batch) is done and only what stays is counted.
      if (slice === 0 || slice === slices - 1) {
        await new Promise((resolve) => setTimeout(resolve, liveHeapPauseMs));
        entry.heap.push(((await system.liveHeap?.()) ?? 0) / 1048576);
      }
    }
    process.stdout.write(`soak slice ${slice + 1}/${slices}\n`);
  }
  const lines = [
    `Soak: ${config.soakMinutes} minutes at ${config.connections} connections per gateway, in ${sliceSeconds} s slices alternated; RSS after each slice. RSS moves with the room V8 keeps for its heap; the live heap (what is still reachable after a full collection, 3 s after the slice's load, the gateways started with --expose-gc) is the leak check.`,
    "",
    "| gateway | RSS after first slice MiB | RSS at end MiB | max MiB | growth first to end | mean of first / last five slices MiB | live heap after first slice / at end MiB | req/s first / last slice | errors |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const mean = (values: number[]) =>
    values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  for (const system of gateways) {
    const entry = samples.get(system.key) as SoakSamples;
    const first = entry.rss[0] ?? 0;
    const last = entry.rss[entry.rss.length - 1] ?? 0;
    lines.push(
      `| ${system.label} | ${fmt(first, 0)} | ${fmt(last, 0)} | ${fmt(Math.max(...entry.rss), 0)} | ${fmt(((last - first) / first) * 100, 1)}% | ${fmt(mean(entry.rss.slice(0, 5)), 0)} / ${fmt(mean(entry.rss.slice(-5)), 0)} | ${fmt(entry.heap[0], 1)} / ${fmt(entry.heap[1], 1)} | ${fmt(entry.rps[0], 0)} / ${fmt(entry.rps[entry.rps.length - 1], 0)} | ${entry.errors} |`,
    );
  }
  lines.push(
    "",
    `RSS samples (MiB): ${gateways
      .map(
        (s) =>
          `${s.key}: ${samples
            .get(s.key)
            ?.rss.map((v) => v.toFixed(0))
            .join(" ")}`,
      )
      .join("; ")}`,
    "",
  );
  return lines.join("\n");
}

/**
 * BILLING_JOURNAL=database (the shared journal: each settlement's row is committed before its
 * client is answered) against BILLING_JOURNAL=file on the same Postgres, with the direct and
 * bare-proxy baselines; no slow streams.
 */
async function journalsRun(): Promise<void> {
  const started = new Date();
  const loadBefore = loadavg();
  const upstream = await startUpstream();
  const systems: System[] = [directSystem(upstream), await startBareProxy(upstream.origin)];
  const directories: string[] = [];
  for (const journal of ["database", "file"] as const) {
    const databaseUrl = await scratchPostgres(postgresBase, `pod_bench_journal_${journal}`);
    if (!databaseUrl) throw new Error(`Postgres at ${postgresBase} did not answer`);
    const directory = mkdtempSync(join(tmpdir(), "pod-bench-journal-"));
    directories.push(directory);
    systems.push(
      await startGateway({
        key: `gateway-journal-${journal}`,
        label: `this gateway, Postgres, BILLING_JOURNAL=${journal}`,
        upstreamOrigin: upstream.origin,
        databaseUrl,
        env: { BILLING_JOURNAL: journal, BILLING_JOURNAL_DIR: directory },
      }),
    );
  }
  const { rows, busy } = await measure(systems);
  const loadAfter = loadavg();
  const table = report(rows, {
    started,
    load: `${loadBefore[0]?.toFixed(1)} before, ${loadAfter[0]?.toFixed(1)} after`,
    busy,
    notes: [],
  });
  const { added, rps } = summarize(rows);
  const shared = rows.find((row) => row.system.key === "gateway-journal-database") as Row;
  const file = rows.find((row) => row.system.key === "gateway-journal-file") as Row;
  const section = [
    table.replace(/^### Run (\S+)/, "### Run $1: settlement journal, shared (database) vs file"),
    `The shared journal against the file journal: throughput ${fmt(rps(shared) / rps(file))}x, added p50 ${fmt(added(shared, 50) - added(file, 50), 3)} ms, added p99 ${fmt(added(shared, 99) - added(file, 99), 3)} ms (positive: the shared journal costs that much more).`,
    "",
  ].join("\n");
  process.stdout.write(`${section}\n`);
  if (!quick || process.env.BENCH_WRITE === "1") writeResults(section);
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
}

/**
 * The cross-replica rows alone: the direct upstream, and the same marketplace request sent to the
 * replica holding the agent's WebSocket and to a second replica that reaches it through Redis,
 * interleaved request by request so both see the same machine. The replicas run with pages off
 * (API only, as replicas behind a proxy usually do): the pages are not on this path.
 */
async function crossReplicaRun(): Promise<void> {
  const started = new Date();
  const loadBefore = loadavg();
  const upstream = await startUpstream();
  const replicasUrl = await scratchPostgres(postgresBase, "pod_bench_replicas");
  if (!replicasUrl) throw new Error(`Postgres at ${postgresBase} did not answer`);
  const ownRedis = await startBenchRedis();
  const pair = await startReplicaPair({
    upstreamOrigin: upstream.origin,
    databaseUrl: replicasUrl,
    redisUrl: ownRedis?.url ?? redisUrl,
    env: { POD_PAGES: "off" },
  });
  const systems: System[] = [directSystem(upstream), ...pair];
  process.stdout.write("concurrency 1...\n");
  const plain = await sequential(systems, body, config.sequential, config.warmup);
  const streamed = await sequential(systems, streamBody, Math.floor(config.sequential / 2), 50);
  const row = (key: string) => {
    const system = systems.find((candidate) => candidate.key === key) as System;
    return { plain: plain.get(key) as Sequential, streamed: streamed.get(key) as Sequential, system };
  };
  const own = row("market-own");
  const other = row("market-other");
  const direct = row("direct");
  const p = (entry: { plain: Sequential }, rank: number) => percentile(entry.plain.totals, rank);
  const firstByte = (entry: { streamed: Sequential }, rank: number) =>
    percentile(entry.streamed.firstBytes, rank);
  const addedP50 = p(other, 50) - p(own, 50);
  // CPU per request, each path alone (both replicas, their Postgres backends and the bench's own
  // Redis counted): what the second replica costs whatever the machine's load does to latency.
  process.stdout.write("CPU per request...\n");
  const cpuPids = async () => [
    ...new Set([
      ...(await own.system.pids()),
      ...(await other.system.pids()),
      ...(ownRedis ? [ownRedis.pid] : []),
    ]),
  ];
  const cpuPerRequest = async (system: System) => {
    const pids = await cpuPids();
    const before = pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
    let served = 0;
    for (let index = 0; index < config.sequential; index += 1)
      if ((await timedPost(system.target, body)).ok) served += 1;
    return (pids.reduce((sum, pid) => sum + cpuMs(pid), 0) - before) / Math.max(1, served);
  };
  const cpuOwn = await cpuPerRequest(own.system);
  const cpuOther = await cpuPerRequest(other.system);
  const floor = await redisRoundTrip(ownRedis?.url ?? redisUrl, config.sequential);
  const loadAfter = loadavg();
  const failures = (entry: { plain: Sequential; streamed: Sequential }) =>
    entry.plain.failures + entry.streamed.failures;
  const section = [
    `### Run ${started.toISOString()}: cross-replica only (npm run bench -- --only cross-replica)`,
    "",
    `Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}). Machine load average ${loadBefore[0]?.toFixed(2)} before, ${loadAfter[0]?.toFixed(2)} after (other sessions' work included). Concurrency 1: ${config.sequential} non-streamed and ${Math.floor(config.sequential / 2)} streamed requests per system after ${config.warmup} warm-up rounds, systems interleaved request by request. Two replicas of this gateway on one Postgres database and one Redis, pages off; an agent that answers at once (bench/instant-agent.ts) holds its WebSocket on the first.`,
    "",
    "| system | p50 ms, c=1 | p99 ms, c=1 | TTFB p50 ms, streamed | TTFB p99 ms, streamed | failures |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...[direct, own, other].map(
      (entry) =>
        `| ${entry.system.label} | ${fmt(p(entry, 50), 3)} | ${fmt(p(entry, 99), 3)} | ${fmt(firstByte(entry, 50), 3)} | ${fmt(firstByte(entry, 99), 3)} | ${failures(entry)} |`,
    ),
    "",
    "| what the second replica adds | p50 ms, c=1 (goal <= 1) | p99 ms, c=1 | TTFB p50 ms, streamed |",
    "| --- | ---: | ---: | ---: |",
    `| through another replica minus on the agent's own | ${fmt(addedP50, 3)} (${addedP50 <= 1 ? "met" : "not met"}) | ${fmt(p(other, 99) - p(own, 99), 3)} | ${fmt(firstByte(other, 50) - firstByte(own, 50), 3)} |`,
    "",
    `CPU per non-streamed request, ${config.sequential} requests per path run alone (both replicas, their Postgres backends${ownRedis ? " and the bench's own redis-server" : "; Redis is the shared one, not counted"}): ${fmt(cpuOwn, 3)} ms on the agent's own replica, ${fmt(cpuOther, 3)} ms through another replica, ${fmt(cpuOther - cpuOwn, 3)} ms added.`,
    "",
    floorLine(floor),
    "",
  ].join("\n");
  process.stdout.write(`${section}\n`);
  if (!quick || process.env.BENCH_WRITE === "1") addRun(section);
}

/** What Redis alone costs a cross-replica request here: the part of the added time no code of ours can remove. */
function floorLine(floor: RoundTrip): string {
  return `The floor under that, measured in the same run: a message published through the same Redis to another idle Node process and published back (a job out and its answer home, with nothing else done on either side) takes ${fmt(floor.p50, 3)} ms p50, ${fmt(floor.p99, 3)} ms p99.`;
}

/** Adds a partial run (one scenario) at the top of the runs, leaving every full run in place. */
function addRun(section: string): void {
  const path = "bench/results.md";
  const previous = readFileSync(path, "utf8");
  const at = previous.indexOf(runsMarker);
  if (at < 0) {
    writeResults(section);
    return;
  }
  const end = at + runsMarker.length;
  writeFileSync(path, `${previous.slice(0, end)}\n\n${section.trim()}\n${previous.slice(end)}`);
}

/**
 * This gateway twice, on a fresh file-backed PGlite and on a scratch Postgres database when
 * Postgres answers, appended to `systems`; the Postgres URL, or undefined when it did not answer.
 * With `checkout`, that other checkout's gateway instead (keys ending "-b", its own database).
 */
async function startOurGateways(
  systems: System[],
  upstreamOrigin: string,
  options: Pick<GatewayOptions, "env" | "exposeGc"> & { checkout?: string },
): Promise<string | undefined> {
  const { checkout, ...gateway } = options;
  const of = checkout
    ? { suffix: "-b", label: (database: string) => `${database}, ${checkout}`, cwd: { cwd: checkout } }
    : { suffix: "", label: (database: string) => `this gateway, ${database}`, cwd: {} };
  systems.push(
    await startGateway({
      key: `gateway-pglite${of.suffix}`,
      label: of.label("PGlite"),
      upstreamOrigin,
      ...gateway,
      ...of.cwd,
    }),
  );
  const databaseUrl = await scratchPostgres(postgresBase, checkout ? "pod_bench_b" : "pod_bench");
  if (databaseUrl)
    systems.push(
      await startGateway({
        key: `gateway-postgres${of.suffix}`,
        label: of.label("Postgres"),
        upstreamOrigin,
        databaseUrl,
        ...gateway,
        ...of.cwd,
      }),
    );
  return databaseUrl;
}

/**
 * The concurrency-1 phase alone, for working on the added latency: no build (pages off, not on
 * this path), no throughput rounds, no slow streams; prints and writes nothing to results.md.
 */
async function latencyRun(): Promise<void> {
  const loadBefore = loadavg();
  const upstream = await startUpstream();
  const systems: System[] = [directSystem(upstream), await startBareProxy(upstream.origin)];
  const env = { POD_PAGES: "off", BENCH_TIME_REQUESTS: "1" };
  await startOurGateways(systems, upstream.origin, { env });
  const other = process.env.BENCH_AB_DIR;
  if (other) await startOurGateways(systems, upstream.origin, { env, checkout: other });
  process.stdout.write("concurrency 1...\n");
  // Inside each process over the measured requests: its main thread's CPU, and for the gateways
  // what their probe timed (is a request's time spent running or waiting?).
  const cpuAtStart = new Map<string, number>();
  const warm = async () => {
    for (const system of systems) {
      cpuAtStart.set(system.key, mainThreadCpuMs(system.pid));
      await system.requestTimings?.();
    }
  };
  const plain = await sequential(systems, body, config.sequential, config.warmup, warm);
  const inside = new Map<string, { cpu: number; timings: RequestTimings | undefined }>();
  for (const system of systems)
    inside.set(system.key, {
      cpu: (mainThreadCpuMs(system.pid) - (cpuAtStart.get(system.key) ?? 0)) / config.sequential,
      timings: await system.requestTimings?.(),
    });
  const streamed = await sequential(systems, streamBody, Math.floor(config.sequential / 2), 50);
  const direct = { plain: plain.get("direct") as Sequential, streamed: streamed.get("direct") as Sequential };
  for (const system of systems.slice(1)) {
    const own = plain.get(system.key) as Sequential;
    const streams = streamed.get(system.key) as Sequential;
    const added = percentile(own.totals, 50) - percentile(direct.plain.totals, 50);
    const firstByte = percentile(streams.firstBytes, 50) - percentile(direct.streamed.firstBytes, 50);
    process.stdout.write(
      `${system.label}: added p50 ${fmt(added, 3)} ms, added TTFB p50 ${fmt(firstByte, 3)} ms, failures ${own.failures + streams.failures}\n`,
    );
    const { cpu, timings } = inside.get(system.key) ?? { cpu: 0, timings: undefined };
    process.stdout.write(
      `  whole requests: main thread ${fmt(cpu, 3)} ms of CPU a request${
        timings
          ? `; inside the gateway p50 ${fmt(timings.wall, 3)} ms, its event loop active ${fmt(timings.active, 3)} and idle ${fmt(timings.idle, 3)} of it`
          : ""
      }\n`,
    );
  }
  process.stdout.write(
    `load average ${loadBefore[0]?.toFixed(2)} before, ${loadavg()[0]?.toFixed(2)} after\n`,
  );
}

/**
 * The 50-connection rounds alone, for working on throughput: no build (pages off), no
 * concurrency-1 phase, no slow streams; prints, per round, each system's req/s and CPU a
 * request (all its processes, and its main thread alone); writes nothing to results.md.
 */
async function throughputRun(): Promise<void> {
  const busyAll = machineBusy();
  const upstream = await startUpstream();
  const systems: System[] = [await startBareProxy(upstream.origin)];
  const env = { POD_PAGES: "off" };
  await startOurGateways(systems, upstream.origin, { env });
  const other = process.env.BENCH_AB_DIR;
  if (other) await startOurGateways(systems, upstream.origin, { env, checkout: other });
  const results = new Map<string, string[]>(systems.map((system) => [system.key, []]));
  for (let round = 0; round < config.rounds; round += 1) {
    for (let offset = 0; offset < systems.length; offset += 1) {
      const system = systems[(round + offset) % systems.length] as System;
      const mainBefore = mainThreadCpuMs(system.pid);
      const measured = await throughputRound(system);
      const main = (mainThreadCpuMs(system.pid) - mainBefore) / Math.max(1, measured.requests);
      results
        .get(system.key)
        ?.push(
          `${fmt(measured.rps, 0)} req/s, ${fmt(measured.cpuPerRequest, 3)} ms (main ${fmt(main, 3)})${measured.statementsPerRequest === undefined ? "" : `, ${fmt(measured.statementsPerRequest, 3)} statements`}`,
        );
    }
    process.stdout.write(`round ${round + 1}/${config.rounds}\n`);
  }
  for (const system of systems)
    process.stdout.write(`${system.label}: ${(results.get(system.key) ?? []).join(" | ")}\n`);
  process.stdout.write(`all cores ${Math.round(busyAll() * 100)}% busy over the run\n`);
}

async function main() {
  if (journals) return journalsRun();
  if (only === "throughput") return throughputRun();
  if (only === "cross-replica") return crossReplicaRun();
  if (only === "latency") return latencyRun();
  if (only === "cache-hit") {
    const section = await cacheHitRun({ count: config.sequential, warmup: config.warmup });
    process.stdout.write(`${section}\n`);
    if (!quick || process.env.BENCH_WRITE === "1") addRun(section);
    return;
  }
  const started = new Date();
  const loadBefore = loadavg();
  const notes: string[] = [];
  ensureFreshBuild();
  const upstream = await startUpstream();
  const systems: System[] = [directSystem(upstream), await startBareProxy(upstream.origin)];
  const portkey = await startPortkey(upstream.origin);
  if (portkey) systems.push(portkey);
  else notes.push("Portkey is not installed (npm install): left out.");
  if (portkey?.note) notes.push(`Portkey: ${portkey.note}.`);
  const databaseUrl = await startOurGateways(systems, upstream.origin, { exposeGc: soak });
  if (!databaseUrl)
    notes.push(`Postgres at ${postgresBase} did not answer: the Postgres gateway is left out.`);
  const replicasUrl =
    databaseUrl && !soak ? await scratchPostgres(postgresBase, "pod_bench_replicas") : undefined;
  if (replicasUrl) {
    try {
      systems.push(
        ...(await startReplicaPair({ upstreamOrigin: upstream.origin, databaseUrl: replicasUrl, redisUrl })),
      );
    } catch (error) {
      notes.push(
        `The cross-replica rows are left out (Redis at ${redisUrl}?): ${String(error).slice(0, 200)}`,
      );
    }
  }
  const gateways = systems.filter((system) => system.key.startsWith("gateway"));

  if (soak) {
    const section = `### Soak ${started.toISOString()}\n\n${await soakRun(gateways)}`;
    process.stdout.write(`${section}\n`);
    writeResults(section);
    return;
  }

  const { rows, busy } = await measure(systems);
  const redisFloor = systems.some((system) => system.key === "market-other")
    ? await redisRoundTrip(redisUrl, config.sequential)
    : undefined;
  if (config.slowStreams > 0) {
    process.stdout.write("slow streams...\n");
    for (const row of rows) {
      // The instant agent answers every job at once: slow streams are the upstream's behaviour.
      if (row.system.key === "direct" || row.system.key.startsWith("market")) continue;
      row.slow = await slowStreams(row.system.target, slowBody, config.slowStreams);
    }
  }
  for (const row of rows) row.rssEnd = rssMiB(row.system.pid);
  const loadAfter = loadavg();
  const section = report(rows, {
    started,
    load: `${loadBefore[0]?.toFixed(1)} before, ${loadAfter[0]?.toFixed(1)} after`,
    busy,
    notes,
    ...(redisFloor ? { redisFloor } : {}),
  });
  process.stdout.write(`${section}\n`);
  if (!quick || process.env.BENCH_WRITE === "1") {
    writeResults(section);
    const { added, rps } = summarize(rows);
    writeFileSync(
      "bench/results.svg",
      renderPlot(
        rows.map((row) => ({
          label: row.system.label,
          rps: rps(row),
          addedP50: row.system.key === "direct" ? 0 : added(row, 50),
          addedP99: row.system.key === "direct" ? 0 : added(row, 99),
        })),
      ),
    );
  }
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(async () => {
    closeAgents();
    await stopAll();
  });
