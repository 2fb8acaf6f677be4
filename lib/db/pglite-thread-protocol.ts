/**
 * Messages between the gateway's thread and the worker thread that runs the embedded PGlite
 * (lib/db/pglite-thread-worker.ts). Values cross by structured clone, so bigint, Date and byte
 * arrays arrive as they left; functions do not, hence `rawTypes` instead of PGlite's parsers.
 */
export interface ThreadQueryOptions {
  rowMode?: "array" | "object";
  /** Type OIDs whose text is returned as it is (what drizzle's identity parsers ask for). */
  rawTypes?: number[];
}

export type ThreadRequest =
  /** Without `params` PGlite sends one simple-protocol query, half the work of parse/bind/execute. */
  | { id: number; op: "query"; tx?: number; text: string; params?: unknown[]; options?: ThreadQueryOptions }
  | { id: number; op: "exec"; tx?: number; text: string }
  | { id: number; op: "begin" }
  | { id: number; op: "end"; tx: number; commit: boolean }
  | { id: number; op: "close" };

/** A database error's fields (code, detail, constraint, ...) so callers can still read SQLSTATE. */
export interface ThreadErrorFields {
  name: string;
  message: string;
  fields: Record<string, string | number>;
}

export type ThreadReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: ThreadErrorFields }
  | { ready: true }
  | { ready: false; error: ThreadErrorFields };

export function errorToFields(error: unknown): ThreadErrorFields {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), fields: {} };
  const fields: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === "string" || typeof value === "number") fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

/** The worker's error as an Error on this side, with the same own fields (code first of all). */
export class PGliteThreadError extends Error {
  constructor(data: ThreadErrorFields) {
    super(data.message);
    this.name = data.name;
    Object.assign(this, data.fields);
  }
}
