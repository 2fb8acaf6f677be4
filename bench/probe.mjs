// Preloaded into the gateway under test (node --import ./bench/probe.mjs scripts/start.mjs):
// counts the database statements the process sends, so the bench can report statements and
// round trips per request. It answers "stats" (and, for the soak, "memory") over the IPC channel the bench opened.
// Plain JavaScript, so measuring does not load tsx (a loader thread, ~80 MiB) into the gateway.
// It also times each chat request inside the gateway (the server's "request" event to the
// response's "finish"), with how long the event loop was active and idle meanwhile, for
// "requests" (the concurrency-1 phase: is a request's time spent running or waiting?), when
// BENCH_TIME_REQUESTS=1 (only `--only latency` sets it: the full run measures without it).
// PGlite in process: calls to query/exec, transactions as begin + commit. PGlite behind its
// worker-thread client: the query, exec, begin and end messages posted to the worker (the
// client class itself is bundled into the compiled server, out of reach). Postgres: the frontend protocol
// messages written to port 5432 sockets (Execute and simple Query are statements; Sync and
// simple Query are round trips).
import { Server } from "node:http";
import { Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";

const counts = { statements: 0, roundTrips: 0 };

function countCalls(target, name) {
  const original = target[name];
  Object.defineProperty(target, name, {
    configurable: true,
    writable: true,
    value(...args) {
      counts.statements += 1;
      counts.roundTrips += 1;
      return original.apply(this, args);
    },
  });
}

function countPGliteCalls(proto) {
  countCalls(proto, "query");
  countCalls(proto, "exec");
  const transaction = proto.transaction;
  proto.transaction = function (callback) {
    counts.statements += 2;
    counts.roundTrips += 2;
    return transaction.call(this, (tx) => {
      countCalls(tx, "query");
      countCalls(tx, "exec");
      return callback(tx);
    });
  };
}
countPGliteCalls(PGlite.prototype);

const threadOps = new Set(["query", "exec", "begin", "end"]);
const postMessage = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (message, ...rest) {
  if (threadOps.has(message?.op)) {
    counts.statements += 1;
    counts.roundTrips += 1;
  }
  return postMessage.call(this, message, ...rest);
};

const postgresPort = 5432;
const protocolVersion = 196_608;
const write = Socket.prototype.write;
Socket.prototype.write = function (...args) {
  const data = args[0];
  if (this.remotePort === postgresPort && Buffer.isBuffer(data)) countFrontendMessages(data);
  return write.apply(this, args);
};

function countFrontendMessages(data) {
  if (data.length >= 8 && data.readInt32BE(4) === protocolVersion) return;
  let offset = 0;
  while (offset + 5 <= data.length) {
    const type = String.fromCharCode(data[offset] ?? 0);
    const length = data.readInt32BE(offset + 1);
    if (length < 4) return;
    if (type === "E") counts.statements += 1;
    if (type === "S") counts.roundTrips += 1;
    if (type === "Q") {
      counts.statements += 1;
      counts.roundTrips += 1;
    }
    offset += 1 + length;
  }
}

/** The newest timings, [wall, active, idle] in ms, at most `keptTimings`. */
const timings = [];
const keptTimings = 5_000;
const emit = Server.prototype.emit;
if (process.env.BENCH_TIME_REQUESTS === "1")
  Server.prototype.emit = function (event, ...args) {
    const [request, response] = args;
    if (event === "request" && request.url?.endsWith("/chat/completions")) {
      const started = performance.now();
      const loop = performance.eventLoopUtilization();
      response.once("finish", () => {
        const { active, idle } = performance.eventLoopUtilization(loop);
        if (timings.push([performance.now() - started, active, idle]) > keptTimings) timings.shift();
      });
    }
    return emit.call(this, event, ...args);
  };

const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

process.on("message", (message) => {
  if (message === "stats") process.send?.({ ...counts });
  // Medians of the requests timed since the last ask, then a fresh start.
  if (message === "requests") {
    const taken = timings.splice(0);
    process.send?.({
      count: taken.length,
      wall: median(taken.map((timing) => timing[0])),
      active: median(taken.map((timing) => timing[1])),
      idle: median(taken.map((timing) => timing[2])),
    });
  }
  // The soak's leak check: what is still reachable after a full collection (the gateway runs
  // with --expose-gc only in the soak), where RSS also moves with the heap room V8 keeps.
  if (message === "memory") {
    globalThis.gc?.();
    process.send?.({
      liveHeap: process.memoryUsage().heapUsed,
      collected: typeof globalThis.gc === "function",
    });
  }
});
