import { randomBytes, randomUUID } from "node:crypto";

// One getrandom call per several hundred ids instead of one per id: ids are minted on every request.
let pool = Buffer.alloc(0);
let offset = 0;

function randomPart(bytes: number): Buffer {
  if (offset + bytes > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  const part = pool.subarray(offset, offset + bytes);
  offset += bytes;
  return part;
}

/**
 * The current Unix second. Ids carry the second, not the millisecond: that is enough for an
 * index to grow at its right edge, and it says nothing of how long a request took inside the
 * gateway (a host sees request ids in its earnings; a finer clock would let it tell a canary,
 * minted next to its dispatch, from a caller's request, minted on arrival).
 */
const currentSecond = () => Math.floor(Date.now() / 1000);

/**
 * Prefixed ids for logs, headers and rows (`req_…`): the minting second in 8 hex digits, then
 * 96 random bits. The time leads so that ids sort by when they were minted and the indexes
 * keyed by them (usage records, receipts, ledger idempotency keys) grow at their right edge:
 * random keys land on random index pages, which costs more with every row the table holds.
 */
export function newId(prefix: "req" | "hold" | "ltx" | "job" | "gw" | "lease"): string {
  return `${prefix}_${currentSecond().toString(16).padStart(8, "0")}${randomPart(12).toString("hex")}`;
}

/** A random (version 4) uuid: what a secret or an unguessable handle is made of. */
export function newUuid(): string {
  return randomUUID();
}

/**
 * A version 7 uuid (RFC 9562): its 48-bit timestamp is the minting second (in milliseconds, the
 * reduced precision the RFC allows), then 74 random bits. For row ids written on every request,
 * so the primary key and the indexes that name it grow at their right edge. Never a secret.
 */
export function newTimeOrderedUuid(): string {
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(currentSecond() * 1000, 0, 6);
  randomPart(10).copy(bytes, 6);
  bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}
