// Preloaded into the gateway under test (node --import tsx --import ./bench/probe.ts server.ts):
// counts the database statements the process sends, so the bench can report statements and
// round trips per request. It answers "stats" over the IPC channel the bench opened.
// PGlite (in process or behind its worker-thread client): calls to query/exec, transactions as
// begin + commit. Postgres: the frontend protocol
// messages written to port 5432 sockets (Execute and simple Query are statements; Sync and
// simple Query are round trips).
import { Socket } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { PGliteThreadClient } from "../lib/db/pglite-thread-client";

const counts = { statements: 0, roundTrips: 0 };

type AnyFunction = (...args: unknown[]) => unknown;
type Transactional = { query: AnyFunction; exec: AnyFunction };

function countCalls<T extends object>(target: T, name: keyof T & string): void {
  const original = target[name] as unknown as AnyFunction;
  Object.defineProperty(target, name, {
    configurable: true,
    writable: true,
    value(this: unknown, ...args: unknown[]) {
      counts.statements += 1;
      counts.roundTrips += 1;
      return original.apply(this, args);
    },
  });
}

function countPGliteCalls(prototype: object): void {
  const proto = prototype as Transactional & { transaction: AnyFunction };
  countCalls(proto, "query");
  countCalls(proto, "exec");
  const transaction = proto.transaction;
  proto.transaction = function (this: unknown, callback: unknown) {
    counts.statements += 2;
    counts.roundTrips += 2;
    return transaction.call(this, (tx: Transactional) => {
      countCalls(tx, "query");
      countCalls(tx, "exec");
      return (callback as (tx: Transactional) => unknown)(tx);
    });
  };
}
countPGliteCalls(PGlite.prototype);
countPGliteCalls(PGliteThreadClient.prototype);

const postgresPort = 5432;
const protocolVersion = 196_608;
const write = Socket.prototype.write as AnyFunction;
Socket.prototype.write = function (this: Socket, ...args: unknown[]) {
  const data = args[0];
  if (this.remotePort === postgresPort && Buffer.isBuffer(data)) countFrontendMessages(data);
  return write.apply(this, args) as boolean;
} as typeof Socket.prototype.write;

function countFrontendMessages(data: Buffer): void {
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

process.on("message", (message) => {
  if (message === "stats") process.send?.({ ...counts });
});
