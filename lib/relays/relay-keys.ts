import { and, desc, eq, isNull } from "drizzle-orm";
import { decryptSecret, encryptSecret } from "../crypto/secret-box";
import type { Executor } from "../db/client";
import { relayKeys, relayListings } from "../db/schema";
import type { CentralizedUpstreamName } from "../env";
import { newUuid } from "../ids";
import { relayKeyAssociatedData } from "./relay-encryption-key";

/** A relay key as its owner may see it: never the key itself. */
export interface RelayKeyView {
  id: string;
  upstream: string;
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

const viewColumns = {
  id: relayKeys.id,
  upstream: relayKeys.upstream,
  label: relayKeys.label,
  createdAt: relayKeys.createdAt,
  revokedAt: relayKeys.revokedAt,
};

export interface AddRelayKeyInput {
  hostId: string;
  upstream: CentralizedUpstreamName;
  apiKey: string;
  label: string | undefined;
}

/** Seals and stores an upstream key; the plaintext exists only in this call. */
export async function addRelayKey(
  executor: Executor,
  encryptionKey: Buffer,
  input: AddRelayKeyInput,
): Promise<RelayKeyView> {
  const id = newUuid();
  const ciphertext = encryptSecret(encryptionKey, input.apiKey, relayKeyAssociatedData(id));
  const rows = await executor
    .insert(relayKeys)
    .values({ id, hostId: input.hostId, upstream: input.upstream, label: input.label ?? null, ciphertext })
    .returning(viewColumns);
  const row = rows[0];
  if (!row) throw new Error("relay key insert returned nothing");
  return row;
}

export async function listRelayKeys(executor: Executor, hostId: string): Promise<RelayKeyView[]> {
  return executor
    .select(viewColumns)
    .from(relayKeys)
    .where(eq(relayKeys.hostId, hostId))
    .orderBy(desc(relayKeys.createdAt));
}

export async function findActiveRelayKey(
  executor: Executor,
  hostId: string,
  relayKeyId: string,
): Promise<RelayKeyView | undefined> {
  const rows = await executor
    .select(viewColumns)
    .from(relayKeys)
    .where(and(eq(relayKeys.id, relayKeyId), eq(relayKeys.hostId, hostId), isNull(relayKeys.revokedAt)));
  return rows[0];
}

/**
 * Revokes a key: the ciphertext is erased and the listings it served are disabled, in one
 * transaction. Returns false when the host owns no such live key.
 */
export async function revokeRelayKey(
  executor: Executor,
  hostId: string,
  relayKeyId: string,
): Promise<boolean> {
  return executor.transaction(async (transaction) => {
    const revoked = await transaction
      .update(relayKeys)
      .set({ revokedAt: new Date(), ciphertext: null })
      .where(and(eq(relayKeys.id, relayKeyId), eq(relayKeys.hostId, hostId), isNull(relayKeys.revokedAt)))
      .returning({ id: relayKeys.id });
    if (revoked.length === 0) return false;
    await transaction
      .update(relayListings)
      .set({ enabled: false, updatedAt: new Date() })
      .where(eq(relayListings.relayKeyId, relayKeyId));
    return true;
  });
}

export function openRelayKey(encryptionKey: Buffer, relayKeyId: string, ciphertext: string): string {
  return decryptSecret(encryptionKey, ciphertext, relayKeyAssociatedData(relayKeyId));
}
