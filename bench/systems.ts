// The systems the bench compares, each its own process on 127.0.0.1: the instant fake upstream,
// a bare node:http + undici proxy, Portkey's open-source gateway, and this gateway as `npm start`
// runs it (server.ts, pages on) on the embedded PGlite and on Postgres.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import postgres from "postgres";
import { buildState } from "../lib/pages/build-stamp";
import { rssMiB, type Target } from "./measure";
import { portkeyEntry } from "./portkey-setup";

export interface System {
  key: string;
  label: string;
  target: Target;
  /** Processes whose CPU counts toward this system's requests (the database server's backends too). */
  pids(): Promise<number[]>;
  /** The process whose resident memory is reported. */
  pid: number;
  /** Its resident memory once started and idle, before any load (gateways). */
  idleRss?: number;
  /** Database statements and round trips sent so far, when the system has a database. */
  statements?(): Promise<{ statements: number; roundTrips: number }>;
  /** Medians of the chat requests it timed inside itself since the last call (bench/probe.mjs). */
  requestTimings?(): Promise<RequestTimings>;
  /** Bytes still reachable on its V8 heap after a full collection (a gateway started with `exposeGc`). */
  liveHeap?(): Promise<number>;
  note?: string;
}

/** Inside a gateway, per request: wall time, and the event loop's active and idle time within it (ms). */
export interface RequestTimings {
  count: number;
  wall: number;
  active: number;
  idle: number;
}

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

export async function stopAll(): Promise<void> {
  // A profiling run's processes are asked to stop, so node writes their --cpu-prof profiles.
  if (nodeArgs().some((arg) => arg.startsWith("--cpu-prof")))
    await Promise.all(children.filter((child) => child.exitCode === null).map((child) => stopGently(child)));
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  for (const cleanup of cleanups) await cleanup();
}

/** SIGTERM, then up to 5 s to exit. */
function stopGently(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 5_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function track(child: ChildProcess, name: string): ChildProcess {
  children.push(child);
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (part: string) => {
    stderr = (stderr + part).slice(-4000);
  });
  child.once("exit", (code, signal) => {
    if (code !== 0 && signal !== "SIGKILL" && signal !== "SIGTERM")
      process.stderr.write(`${name} exited (${code ?? signal}):\n${stderr}\n`);
  });
  return child;
}

/** Starts a script that prints one JSON line when it listens. */
async function spawnListening(name: string, args: string[]): Promise<{ port: number; child: ChildProcess }> {
  const child = track(spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] }), name);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) return { port: (JSON.parse(line) as { port: number }).port, child };
  throw new Error(`${name} exited without listening`);
}

async function waitForHttp(url: string, child: ChildProcess, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer within ${seconds} s`);
}

export async function startUpstream(): Promise<{ origin: string; pid: number }> {
  const { port, child } = await spawnListening("upstream", ["--import", "tsx", "bench/instant-upstream.ts"]);
  return { origin: `http://127.0.0.1:${port}`, pid: child.pid ?? 0 };
}

export function directSystem(upstream: { origin: string; pid: number }): System {
  return {
    key: "direct",
    label: "direct to the fake",
    target: { url: `${upstream.origin}/v1/chat/completions`, headers: {} },
    pid: upstream.pid,
    pids: async () => [upstream.pid],
  };
}

export async function startBareProxy(upstreamOrigin: string): Promise<System> {
  const { port, child } = await spawnListening("bare proxy", [
    "--import",
    "tsx",
    "bench/bare-proxy.ts",
    upstreamOrigin,
  ]);
  const pid = child.pid ?? 0;
  return {
    key: "bare",
    label: "bare node:http + undici proxy",
    target: { url: `http://127.0.0.1:${port}/v1/chat/completions`, headers: {} },
    pid,
    pids: async () => [pid],
  };
}

export async function startPortkey(upstreamOrigin: string): Promise<System | undefined> {
  const entry = portkeyEntry();
  if (!entry) return undefined;
  const port = await freePort();
  const child = track(
    spawn(process.execPath, [entry.script, `--port=${port}`, "--headless"], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, NODE_ENV: "production" },
    }),
    "portkey",
  );
  await waitForHttp(`http://127.0.0.1:${port}/`, child, 60);
  const pid = child.pid ?? 0;
  return {
    key: "portkey",
    label: `Portkey gateway ${entry.version}`,
    target: {
      url: `http://127.0.0.1:${port}/v1/chat/completions`,
      headers: {
        authorization: "Bearer sk-bench",
        "x-portkey-provider": "openai",
        "x-portkey-custom-host": `${upstreamOrigin}/v1`,
      },
    },
    pid,
    pids: async () => [pid],
    note: entry.patched
      ? "streams patched at setup (immutable headers, Portkey-AI/gateway#1550)"
      : "build did not match the streaming patch: its streams fail on Node 20",
  };
}

export interface GatewayOptions {
  key: string;
  label: string;
  upstreamOrigin: string;
  /** Postgres URL; without it a fresh file-backed PGlite, the `npm start` default. */
  databaseUrl?: string;
  /** Extra environment for this gateway (e.g. BILLING_JOURNAL; a replica's REDIS_URL, REDIS_NAMESPACE, REPLICA_ID). */
  env?: Record<string, string>;
  /** Requests carry these headers (the marketplace rows route marketplace-only). */
  headers?: Record<string, string>;
  /** Starts it with --expose-gc, so `liveHeap` can collect first (the soak's leak check). */
  exposeGc?: boolean;
  /** Another checkout to run it from (an A/B of two versions of the code in one run); this one by default. */
  cwd?: string;
}

function nodeArgs(): string[] {
  return (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "");
}

/** The node flags `npm start` gives server.ts (`tsx <flags> server.ts`), so the bench runs the same. */
function startScriptFlags(): string[] {
  const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> })
    .scripts;
  const flags = /\bnode((?: --[\w-]+(?:=\S+)?)*) scripts\/start\.mjs/.exec(scripts.start ?? "")?.[1];
  if (flags === undefined)
    throw new Error("package.json's start script no longer runs `node ... scripts/start.mjs`");
  return flags.split(" ").filter((flag) => flag !== "");
}

/**
 * This gateway as `npm start` runs it: the precompiled server with pages on, plus the statement probe.
 * The build must be fresh first (ensureFreshBuild), or the gateway would build its pages
 * beside the measurements.
 */
export async function startGateway(options: GatewayOptions): Promise<System> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "error",
    ADMIN_TOKEN: "bench-admin",
    OPENAI_API_KEY: "sk-bench",
    OPENAI_BASE_URL: `${options.upstreamOrigin}/v1`,
    NEXT_TELEMETRY_DISABLED: "1",
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  Object.assign(env, options.env);
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  else {
    const dataDir = mkdtempSync(join(tmpdir(), "pod-bench-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    env.POD_DATA_DIR = dataDir;
  }
  const child = track(
    // BENCH_NODE_ARGS adds node flags to the gateway (e.g. --cpu-prof) for profiling runs.
    spawn(
      process.execPath,
      [
        ...startScriptFlags(),
        ...nodeArgs(),
        ...(options.exposeGc ? ["--expose-gc"] : []),
        "--import",
        "./bench/probe.mjs",
        "scripts/start.mjs",
      ],
      {
        stdio: ["ignore", "ignore", "pipe", "ipc"],
        env,
        ...(options.cwd ? { cwd: options.cwd } : {}),
      },
    ),
    options.key,
  );
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/health`, child, 400);
  const registered = (await (await fetch(`${origin}/v1/register`, { method: "POST" })).json()) as {
    api_token: string;
  };
  const credited = await fetch(`${origin}/v1/admin/credits`, {
    method: "POST",
    headers: { authorization: "Bearer bench-admin", "content-type": "application/json" },
    body: JSON.stringify({
      api_token: registered.api_token,
      amount_microunits: "1000000000000",
      reason: "bench",
    }),
  });
  if (!credited.ok) throw new Error(`crediting the bench token failed: ${credited.status}`);
  const pid = child.pid ?? 0;
  // Idle as an operator first sees it: started, one token registered and funded, a moment to settle.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const idleRss = rssMiB(pid);
  const databasePids = options.databaseUrl ? postgresBackends(options.databaseUrl) : async () => [];
  return {
    key: options.key,
    label: options.label,
    target: {
      url: `${origin}/proxy/${registered.api_token}/v1/chat/completions`,
      headers: options.headers ?? {},
    },
    pid,
    idleRss,
    pids: async () => [pid, ...(await databasePids())],
    statements: () => askProbe<{ statements: number; roundTrips: number }>(child, "stats"),
    requestTimings: () => askProbe<RequestTimings>(child, "requests"),
    liveHeap: async () => {
      const { liveHeap, collected } = await askProbe<{ liveHeap: number; collected: boolean }>(
        child,
        "memory",
      );
      if (!collected) throw new Error(`${options.key} was not started with exposeGc`);
      return liveHeap;
    },
  };
}

/** One request to the gateway's probe (bench/probe.mjs) over IPC, and its answer; one at a time. */
function askProbe<T>(child: ChildProcess, request: "stats" | "memory" | "requests"): Promise<T> {
  return new Promise((resolve) => {
    child.once("message", (message) => resolve(message as T));
    child.send(request);
  });
}

/** Builds the pages first when `.next` is missing or stale, as the first `npm start` would in the background. */
export function ensureFreshBuild(): void {
  if (buildState(process.cwd()) === "fresh") return;
  process.stdout.write("building the pages first (npm run build)...\n");
  const result = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  if (result.status !== 0) throw new Error(`npm run build failed (${result.status})`);
}

/** A fresh scratch database for the gateway, dropped at the end; undefined when Postgres is not there. */
export async function scratchPostgres(baseUrl: string, name: string): Promise<string | undefined> {
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {}, connect_timeout: 3 });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } catch {
    await admin.end({ timeout: 1 });
    return undefined;
  }
  cleanups.push(async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end({ timeout: 1 });
  });
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Postgres server processes serving the gateway's connections (their CPU is the request's too). */
function postgresBackends(databaseUrl: string): () => Promise<number[]> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const monitor = postgres(databaseUrl.replace(`/${name}`, "/postgres"), { max: 1, onnotice: () => {} });
  cleanups.unshift(() => monitor.end({ timeout: 1 }));
  return async () => {
    const rows = await monitor<{ pid: number }[]>`
      SELECT pid FROM pg_stat_activity WHERE datname = ${name} AND pid <> pg_backend_pid()`;
    return rows.map((row) => row.pid);
  };
}

/**
 * A redis-server of the bench's own on a free port, so its CPU is the bench's alone (the
 * machine's shared Redis serves other work too); undefined when redis-server is not installed.
 */
export async function startBenchRedis(): Promise<{ url: string; pid: number } | undefined> {
  if (spawnSync("redis-server", ["--version"]).status !== 0) return undefined;
  const port = await freePort();
  const child = track(
    spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    ),
    "redis-server",
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines)
    if (line.includes("Ready to accept connections"))
      return { url: `redis://127.0.0.1:${port}`, pid: child.pid ?? 0 };
  throw new Error("redis-server exited before it was ready");
}

/**
 * The cross-replica rows: two replicas of this gateway on one Postgres database and one Redis,
 * and an agent that answers at once (bench/instant-agent.ts) connected to the first. The same
 * marketplace request is sent to the agent's own replica and to the second one, which hands it
 * over through Redis: the difference is what a second replica adds.
 */
export async function startReplicaPair(options: {
  upstreamOrigin: string;
  databaseUrl: string;
  redisUrl: string;
  /** More environment for both replicas (the cross-replica-only run turns pages off). */
  env?: Record<string, string>;
}): Promise<System[]> {
  const shared = {
    ...options.env,
    REDIS_URL: options.redisUrl,
    REDIS_NAMESPACE: `bench-${process.pid}-${Date.now()}`,
  };
  const replica = (key: string, label: string, replicaId: string) =>
    startGateway({
      key,
      label,
      upstreamOrigin: options.upstreamOrigin,
      databaseUrl: options.databaseUrl,
      env: { ...shared, REPLICA_ID: replicaId },
      headers: { "x-pod-routing-mode": "marketplace-only" },
    });
  const home = await replica("market-own", "marketplace, agent on the same replica", "bench-home");
  const other = await replica("market-other", "marketplace, agent on another replica (Redis)", "bench-other");
  const origin = new URL(home.target.url).origin;
  const enrolled = (await (
    await fetch(`${origin}/v1/host/enroll`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        display_name: "bench host",
        wallet: "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS",
      }),
    })
  ).json()) as { provider_id: string; host_token: string };
  const activated = await fetch(`${origin}/v1/admin/hosts/${enrolled.provider_id}/activate`, {
    method: "POST",
    headers: { authorization: "Bearer bench-admin" },
  });
  if (!activated.ok) throw new Error(`activating the bench host failed: ${activated.status}`);
  const profile = (await (
    await fetch(`${origin}/v1/host/profile`, { headers: { authorization: `Bearer ${enrolled.host_token}` } })
  ).json()) as { metadata: { enrollment_code: string } };
  // It prints one line once its offer is accepted.
  await spawnListening("instant agent", [
    "--import",
    "tsx",
    "bench/instant-agent.ts",
    origin,
    profile.metadata.enrollment_code,
  ]);
  const otherOrigin = new URL(other.target.url).origin;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const health = (await (await fetch(`${otherOrigin}/health`)).json()) as {
      components: { marketplace: { agents_seen: number } };
    };
    if (health.components.marketplace.agents_seen === 1) break;
    if (Date.now() > deadline) throw new Error("the second replica never saw the bench agent");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return [home, other];
}
