// npm run bench: the gateway's added latency, throughput and time to first token against an
// instant upstream, measured side by side in one run. Writes bench/results.md.
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { createInterface } from "node:readline";
import autocannon from "autocannon";

const body = JSON.stringify({
  model: "gpt-4o-mini",
  max_tokens: 16,
  messages: [{ role: "user", content: "Say hello" }],
});
const streamBody = JSON.stringify({
  model: "gpt-4o-mini",
  max_tokens: 16,
  stream: true,
  messages: [{ role: "user", content: "Say hello" }],
});
const children: ChildProcess[] = [];

async function spawnJson<T>(script: string, args: string[]): Promise<{ info: T; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
    env: process.env,
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) return { info: JSON.parse(line) as T, child };
  throw new Error(`${script} exited without output`);
}

/** The child's user+system CPU time in microseconds. */
function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once("message", (usage) => {
      const { user, system } = usage as NodeJS.CpuUsage;
      resolve(user + system);
    });
    child.send("cpu");
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One POST; resolves with total time and time to the first body byte, in ms. */
function timedPost(url: string, payload: string): Promise<{ total: number; firstByte: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByte = 0;
    const outgoing = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (incoming) => {
        incoming.on("data", () => {
          if (firstByte === 0) firstByte = performance.now() - started;
        });
        incoming.on("end", () => {
          if (incoming.statusCode !== 200) reject(new Error(`status ${incoming.statusCode}`));
          else resolve({ total: performance.now() - started, firstByte });
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Alternates direct and gateway calls at concurrency 1 so both see the same machine state. */
async function pairedSequential(direct: string, viaGateway: string, payload: string, count: number) {
  const results = {
    direct: [] as number[],
    gateway: [] as number[],
    directFirst: [] as number[],
    gatewayFirst: [] as number[],
  };
  for (let warm = 0; warm < 200; warm += 1) {
    await timedPost(direct, payload);
    await timedPost(viaGateway, payload);
  }
  for (let index = 0; index < count; index += 1) {
    const a = await timedPost(direct, payload);
    const b = await timedPost(viaGateway, payload);
    results.direct.push(a.total);
    results.gateway.push(b.total);
    results.directFirst.push(a.firstByte);
    results.gatewayFirst.push(b.firstByte);
  }
  return results;
}

async function throughput(
  url: string,
  payload: string,
): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({
    url,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: payload,
    connections: 50,
    duration: 8,
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

const fmt = (value: number) => value.toFixed(3);

async function main() {
  const { info: upstream } = await spawnJson<{ port: number }>("bench/instant-upstream.ts", []);
  const upstreamBase = `http://127.0.0.1:${upstream.port}/v1`;
  const { info: gateway, child: gatewayProcess } = await spawnJson<{
    url: string;
    token: string;
    database: string;
  }>("bench/gateway-entry.ts", [upstreamBase]);
  const direct = `${upstreamBase}/chat/completions`;
  const viaGateway = `${gateway.url}/proxy/${gateway.token}/v1/chat/completions`;
  const count = Number(process.env.BENCH_COUNT ?? 2000);

  const cpuBefore = await cpuOf(gatewayProcess);
  const plain = await pairedSequential(direct, viaGateway, body, count);
  // Warm-up pairs count too: 200 + count requests went through the gateway.
  const cpuMicros = (await cpuOf(gatewayProcess)) - cpuBefore;
  const gatewayCpuMs = cpuMicros / 1000 / (count + 200);
  const streamed = await pairedSequential(direct, viaGateway, streamBody, Math.floor(count / 2));
  const directThroughput = await throughput(direct, body);
  const gatewayThroughput = await throughput(viaGateway, body);

  const added = (p: number) => percentile(plain.gateway, p) - percentile(plain.direct, p);
  const addedTtft = (p: number) => percentile(streamed.gatewayFirst, p) - percentile(streamed.directFirst, p);
  const lines = [
    "# Benchmark results",
    "",
    `Run ${new Date().toISOString()} on ${process.platform} ${process.arch}, Node ${process.version}, ${(await import("node:os")).cpus().length} cores.`,
    `Gateway database: ${gateway.database}. Billing on (hold before dispatch, settle after). Upstream: an instant local fake.`,
    `Concurrency 1: ${count} non-streamed and ${Math.floor(count / 2)} streamed requests, direct and gateway alternated, after 200 warm-up pairs.`,
    "Throughput: autocannon, 50 connections, 8 s each.",
    "",
    "| measure | direct | through gateway | added |",
    "| --- | ---: | ---: | ---: |",
    `| latency p50 (ms), c=1 | ${fmt(percentile(plain.direct, 50))} | ${fmt(percentile(plain.gateway, 50))} | ${fmt(added(50))} |`,
    `| latency p99 (ms), c=1 | ${fmt(percentile(plain.direct, 99))} | ${fmt(percentile(plain.gateway, 99))} | ${fmt(added(99))} |`,
    `| stream time to first byte p50 (ms), c=1 | ${fmt(percentile(streamed.directFirst, 50))} | ${fmt(percentile(streamed.gatewayFirst, 50))} | ${fmt(addedTtft(50))} |`,
    `| stream time to first byte p99 (ms), c=1 | ${fmt(percentile(streamed.directFirst, 99))} | ${fmt(percentile(streamed.gatewayFirst, 99))} | ${fmt(addedTtft(99))} |`,
    `| throughput (req/s), c=50 | ${directThroughput.rps.toFixed(0)} | ${gatewayThroughput.rps.toFixed(0)} | ratio ${(gatewayThroughput.rps / directThroughput.rps).toFixed(2)} |`,
    `| latency p99 (ms), c=50 | ${directThroughput.p99} | ${gatewayThroughput.p99} | |`,
    `| errors + non-2xx, c=50 | ${directThroughput.errors} | ${gatewayThroughput.errors} | |`,
    `| gateway process CPU per non-streamed request (ms) | | ${fmt(gatewayCpuMs)} | |`,
    "",
    "Targets: under 1 ms added p99 at concurrency 1; gateway throughput at least half of direct.",
    "",
  ];
  const output = lines.join("\n");
  writeFileSync(process.env.BENCH_OUT ?? "bench/results.md", output);
  process.stdout.write(output);
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const child of children) child.kill();
    agent.destroy();
  });
