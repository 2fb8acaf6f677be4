import type { Database } from "../db/client";
import { GatewayError } from "../errors/gateway-error";
import { isUuid } from "../ids";
import { findKeyByHash } from "./find-key";
import { findToken, type TokenRecord } from "./find-token";
import { hashToken } from "./token-hash";

interface Cached {
  record: TokenRecord;
  /** Keys can be revoked, rotated and re-limited: their entry is read again after this time. */
  expiresAt: number;
}

/** token or key hash -> record. A token's mapping never changes once minted; a key's may. */
const cache = new WeakMap<Database, Map<string, Cached>>();
const maxCached = 50_000;
/** How long another process may still accept a key after it is revoked or rotated. */
const keyCacheMs = 1_000;

function cacheOf(database: Database): Map<string, Cached> {
  let perDatabase = cache.get(database);
  if (!perDatabase) {
    perDatabase = new Map();
    cache.set(database, perDatabase);
  }
  return perDatabase;
}

/** Resolves the path token (or a further API key) or throws the 401 the reference service's clients expect. */
export async function authenticateToken(database: Database, token: string): Promise<TokenRecord> {
  if (!isUuid(token)) throw new GatewayError("unauthorized", "unauthorized: invalid token format");
  const perDatabase = cacheOf(database);
  const key = hashToken(token);
  const cached = perDatabase.get(key);
  if (cached && cached.expiresAt > Date.now()) return cached.record;
  const record = (await findToken(database, token)) ?? (await findKeyByHash(database, key));
  if (!record) {
    perDatabase.delete(key);
    throw new GatewayError("unauthorized", "unauthorized: token not found or not activated");
  }
  if (perDatabase.size >= maxCached) perDatabase.clear();
  perDatabase.set(key, {
    record,
    expiresAt: record.key === undefined ? Number.POSITIVE_INFINITY : Date.now() + keyCacheMs,
  });
  return record;
}

/** A key was revoked, rotated or re-limited here: this process stops using what it cached at once. */
export function forgetAuthenticated(database: Database, hash: string): void {
  cache.get(database)?.delete(hash);
}
