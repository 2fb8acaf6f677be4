import type { Database } from "../db/client";
import { GatewayError } from "../errors/gateway-error";
import { isUuid } from "../ids";
import { findToken, type TokenRecord } from "./find-token";
import { hashToken } from "./token-hash";

/** token hash -> record; the mapping never changes once minted, so it is safe to cache. */
const cache = new WeakMap<Database, Map<string, TokenRecord>>();
const maxCached = 50_000;

/** Resolves the path token or throws the 401 the reference service's clients expect. */
export async function authenticateToken(database: Database, token: string): Promise<TokenRecord> {
  if (!isUuid(token)) throw new GatewayError("unauthorized", "unauthorized: invalid token format");
  let perDatabase = cache.get(database);
  if (!perDatabase) {
    perDatabase = new Map();
    cache.set(database, perDatabase);
  }
  const key = hashToken(token);
  const cached = perDatabase.get(key);
  if (cached) return cached;
  const record = await findToken(database, token);
  if (!record) throw new GatewayError("unauthorized", "unauthorized: token not found or not activated");
  if (perDatabase.size >= maxCached) perDatabase.clear();
  perDatabase.set(key, record);
  return record;
}
