import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { log } from "../log";
import { fromJournalPayload, toJournalPayload } from "./journal-payload";
import type { LeaseSettlement } from "./settle-batch";

const suffix = ".journal";
/** Between the instance and the database a journal was written against: `<instance>.db-<database>.journal`. */
const databaseMark = ".db-";

/**
 * A line: `{"settle": ...}` or `{"progress": ...}` with the settlement as a database journal row
 * keeps it plus its `requestId`, or `{"written": n}`. Lines before that form held the whole
 * settlement with bigints as "123n" strings; `fromJournalPayload` reads both.
 */
type JournalLine = { settle: unknown } | { progress: unknown } | { written: number };

/** Bigints as "123n" strings: the form of lines written before the compact one (tests write it). */
export function bigintAsText(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? `${value}n` : value;
}

/**
 * A settlement as its line carries it: the flat payload of `toJournalPayload`, no replacer over
 * every key (2.4% of the request thread's time at 50 connections with one).
 */
function lineOf(kind: "settle" | "progress", settlement: LeaseSettlement): string {
  return `{"${kind}":${JSON.stringify({ requestId: settlement.requestId, ...toJournalPayload(settlement) })}}\n`;
}

/** The settlement a line's record holds, or undefined (logged) when it is not one. */
function settlementOf(record: unknown): LeaseSettlement | undefined {
  const requestId =
    typeof record === "object" && record !== null && "requestId" in record ? record.requestId : undefined;
  if (typeof requestId !== "string" || requestId === "") {
    log.warn("a settlement journal line without a request id was skipped");
    return undefined;
  }
  try {
    return fromJournalPayload(requestId, record);
  } catch (error) {
    log.warn("a settlement journal line that is not a settlement was skipped", { requestId, error });
    return undefined;
  }
}

/**
 * Where a process keeps what it answered before the ledger has it: a file on its own disk
 * (`SettlementJournal`), or the shared database (`DatabaseJournal`) so that any replica can
 * bill what a dead one served.
 */
export interface Journal {
  /**
   * Resolves once the settlement is durable; its client is answered after (an answer within the
   * journal window skips the journal: balance-lease.ts). Appends resolve in the order they were made.
   */
  append(settlement: LeaseSettlement): Promise<void>;
  /** A stream's running count so far: billed if the process dies before the stream ends. */
  progress(settlement: LeaseSettlement): void;
  /** These settlements are in the ledger now. */
  written(batch: readonly LeaseSettlement[]): void;
  /**
   * A request that journaled running counts was settled straight in the ledger (a hold row's
   * settlement, not a lease's): its running counts are void. Replaying one would bill nothing
   * (the request's usage record exists), this only keeps the journal short.
   */
  settledDirectly(requestId: string): void;
  /**
   * The process is stopping: a journal that waits on something else (the database) stops waiting
   * after `waitMs` and keeps what it holds somewhere that outlives the process.
   */
  stopping?(waitMs: number): void;
  close(): void;
}

/**
 * What a journal's records bill: the final settlement of each request, or, for a stream the
 * process died in, its last running count.
 */
export function lastPerRequest(records: readonly { settlement: LeaseSettlement; final: boolean }[]) {
  const finals = new Map<string, LeaseSettlement>();
  const running = new Map<string, LeaseSettlement>();
  for (const { settlement, final } of records)
    (final ? finals : running).set(settlement.requestId, settlement);
  for (const [requestId, settlement] of running)
    if (!finals.has(requestId))
      finals.set(requestId, {
        ...settlement,
        usageRecord: { ...settlement.usageRecord, outcome: "interrupted" },
      });
  return [...finals.values()];
}

/**
 * An append-only file of the settlements this process served but has not yet written to the
 * database. Each one is in the file (a synchronous write(2), shared by the settlements of one
 * event-loop turn) before its client is answered, so a process killed at any point (kill -9
 * included) leaves every answered request on disk in the OS page cache; the next start
 * replays it. Once the database has them all, the file is truncated. A power loss can still
 * drop the last unsynced writes: that is the trade for not calling fsync per request.
 */
export class SettlementJournal implements Journal {
  readonly #file: string;
  #fd: number | undefined;
  #unwritten = 0;
  #lines: string[] = [];
  #turn: Promise<void> | undefined;

  constructor(directory: string, instanceId: string, databaseId: string) {
    mkdirSync(directory, { recursive: true });
    this.#file = path.join(directory, `${instanceId}${databaseMark}${databaseId}${suffix}`);
  }

  /**
   * Resolves once the settlement is in the file. Settlements of one event-loop turn share
   * one write(2): the caller answers its client only after this resolves, so a served
   * request is on disk before anyone has its answer.
   */
  append(settlement: LeaseSettlement): Promise<void> {
    this.#lines.push(lineOf("settle", settlement));
    this.#unwritten += 1;
    this.#turn ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        const lines = this.#lines;
        this.#lines = [];
        this.#turn = undefined;
        try {
          this.#fd ??= openSync(this.#file, "a");
          writeSync(this.#fd, lines.join(""));
          resolve();
        } catch (error) {
          reject(error);
        }
      });
    });
    return this.#turn;
  }

  /** A running count, written at once (streams journal one about every second). */
  progress(settlement: LeaseSettlement): void {
    this.#fd ??= openSync(this.#file, "a");
    writeSync(this.#fd, lineOf("progress", settlement));
  }

  /** These settlements reached the database; with none left the file starts over. */
  written(batch: readonly LeaseSettlement[]): void {
    const count = batch.length;
    this.#unwritten -= count;
    if (this.#fd === undefined) return;
    if (this.#unwritten === 0) ftruncateSync(this.#fd, 0);
    else writeSync(this.#fd, `${JSON.stringify({ written: count })}\n`);
  }

  /**
   * With nothing unwritten the file starts over, as after `written`: a stream still relaying
   * writes its running count again within a second.
   */
  settledDirectly(_requestId: string): void {
    if (this.#fd !== undefined && this.#unwritten === 0) ftruncateSync(this.#fd, 0);
  }

  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
    // A replica taken for dead meanwhile may have billed and removed it already.
    if (this.#unwritten === 0) rmSync(this.#file, { force: true });
  }
}

/**
 * The journal of a database that dies with its process (in-memory PGlite): a process killed
 * takes its database along, so no later process could bill what a journal kept, and keeping
 * none is exact. A settlement is answered as soon as it is handed over.
 */
export class VolatileJournal implements Journal {
  append(_settlement: LeaseSettlement): Promise<void> {
    return Promise.resolve();
  }
  progress(_settlement: LeaseSettlement): void {}
  written(_batch: readonly LeaseSettlement[]): void {}
  settledDirectly(_requestId: string): void {}
  close(): void {}
}

export interface LeftJournal {
  instanceId: string;
  settlements: LeaseSettlement[];
  remove(): void;
}

/** Which journal files in a directory a process may bill into its own database. */
export interface JournalClaim {
  ownInstanceId: string;
  databaseId: string;
  /**
   * Journals named before files carried their database (`<instance>.journal`): claimed only where
   * no other database can have written them (the default folder inside a PGlite data directory).
   */
  unnamed: boolean;
}

/** The instance a journal file belongs to, if it was written against the claiming database. */
function claimedInstance(name: string, claim: JournalClaim): string | undefined {
  if (!name.endsWith(suffix)) return undefined;
  const stem = name.slice(0, -suffix.length);
  const mark = stem.indexOf(databaseMark);
  if (mark === -1) return claim.unnamed ? stem : undefined;
  return stem.slice(mark + databaseMark.length) === claim.databaseId ? stem.slice(0, mark) : undefined;
}

function readJournal(file: string): LeaseSettlement[] {
  const records: { settlement: LeaseSettlement; final: boolean }[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    let parsed: JournalLine;
    try {
      parsed = JSON.parse(line) as JournalLine;
    } catch {
      continue; // a line cut by the crash was never acknowledged to anyone
    }
    // A cut line can still parse, as a number say.
    if (typeof parsed !== "object" || parsed === null) continue;
    const [record, final] =
      "settle" in parsed ? [parsed.settle, true] : "progress" in parsed ? [parsed.progress, false] : [];
    if (final === undefined) continue;
    const settlement = settlementOf(record);
    if (settlement) records.push({ settlement, final });
  }
  return lastPerRequest(records);
}

/**
 * The journals other (earlier or dead) instances left in `directory` against this database.
 * Every settlement in them is returned (a stream's last running count where it never ended):
 * the database skips the ones already written, so the `written` marks are not needed to replay
 * correctly, only to keep the file short. Journals of other databases are never read: billing
 * them here would charge this database's accounts for another's requests.
 */
export function leftJournals(directory: string, claim: JournalClaim): LeftJournal[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  const journals: LeftJournal[] = [];
  for (const name of names) {
    const instanceId = claimedInstance(name, claim);
    if (instanceId === undefined || instanceId === claim.ownInstanceId) continue;
    const file = path.join(directory, name);
    journals.push({ instanceId, settlements: readJournal(file), remove: () => unlinkSync(file) });
  }
  return journals;
}
