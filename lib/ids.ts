import { randomBytes, randomUUID } from "node:crypto";

// One getrandom call per 341 ids instead of one per id: ids are minted on every request.
let pool = Buffer.alloc(0);
let offset = 0;

/** Prefixed, sortable-enough ids for logs and headers (`req_…`): 96 random bits each. */
export function newId(prefix: "req" | "hold" | "ltx" | "job" | "gw" | "lease"): string {
  if (offset + 12 > pool.length) {
    pool = randomBytes(4092);
    offset = 0;
  }
  const id = pool.toString("hex", offset, offset + 12);
  offset += 12;
  return `${prefix}_${id}`;
}

export function newUuid(): string {
  return randomUUID();
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}
