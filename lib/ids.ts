import { randomBytes, randomUUID } from "node:crypto";

/** Prefixed, sortable-enough ids for logs and headers (`req_…`). */
export function newId(prefix: "req" | "hold" | "ltx" | "job" | "gw" | "lease"): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}

export function newUuid(): string {
  return randomUUID();
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}
