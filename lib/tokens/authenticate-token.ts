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
/** Per database: bumped by every forget, so a lookup that raced one does not cache what it read. */
const generations = new WeakMap<Database, number>();
/** Per database: tells the other replicas a key changed (set when replicas share a Redis). */
const publishers = new WeakMap<Database, (hash: string) => Promise<void>>();
const maxCached = 50_000;

function cacheOf(database: Database): Map<string, Cached> {
  let perDatabase = cache.get(database);
  if (!perDatabase) {
    perDatabase = new Map();
    cache.set(database, perDatabase);
  }
  return perDatabase;
}

/** Resolves the path token (or a further API key) or throws the 401 the reference service's clients expect. */
export async function authenticateToken(
  database: Database,
  token: string,
  /** KEY_CACHE_MS: how long a key is used from this cache before it is read again. */
  keyCacheMs: number,
): Promise<TokenRecord> {
  if (!isUuid(token)) throw new GatewayError("unauthorized", "unauthorized: invalid token format");
  const perDatabase = cacheOf(database);
  const key = hashToken(token);
  const cached = perDatabase.get(key);
  if (cached && cached.expiresAt > Date.now()) return cached.record;
  const before = generations.get(database) ?? 0;
  let record = await lookUp(database, token, key);
  // A key changed while it was read (here or on another replica): read it again, after the change.
  if (record?.key !== undefined && (generations.get(database) ?? 0) !== before)
    record = await lookUp(database, token, key);
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

async function lookUp(database: Database, token: string, hash: string): Promise<TokenRecord | undefined> {
  return (await findToken(database, token)) ?? (await findKeyByHash(database, hash));
}

/**
 * A key was revoked, rotated or re-limited here: this process stops using what it cached at
 * once, and the other replicas are told (`shareCredentialChanges`) to do the same.
 */
export async function forgetAuthenticated(database: Database, hash: string): Promise<void> {
  forgetHere(database, hash);
  // Answered only once the others have it: a request sent after the answer finds the key gone.
  await publishers.get(database)?.(hash);
}

/** Another replica changed a key: drop this process's copy. */
export function forgetHere(database: Database, hash: string): void {
  generations.set(database, (generations.get(database) ?? 0) + 1);
  cache.get(database)?.delete(hash);
}

/** Key changes on this database are published with `publish` (the replicas' signal channel). */
export function shareCredentialChanges(database: Database, publish: (hash: string) => Promise<void>): void {
  publishers.set(database, publish);
}
