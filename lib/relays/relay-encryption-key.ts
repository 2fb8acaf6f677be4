import { parseEncryptionKey } from "../crypto/secret-box";
import type { Env } from "../env";
import { GatewayError } from "../errors/gateway-error";

const parsed = new WeakMap<Env, Buffer>();

/** The key that seals relay keys at rest; without POD_ENCRYPTION_KEY, key relays are switched off. */
export function relayEncryptionKey(env: Env): Buffer {
  const cached = parsed.get(env);
  if (cached) return cached;
  if (!env.POD_ENCRYPTION_KEY) {
    throw new GatewayError(
      "service_unavailable",
      "key relays are disabled: POD_ENCRYPTION_KEY is not set on this gateway",
    );
  }
  const key = parseEncryptionKey(env.POD_ENCRYPTION_KEY);
  parsed.set(env, key);
  return key;
}

/** Associated data of a relay key's ciphertext: binds it to its row. */
export function relayKeyAssociatedData(relayKeyId: string): string {
  return `relay-key:${relayKeyId}`;
}
