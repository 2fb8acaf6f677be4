import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { hosts, relayKeys, relayListings } from "../db/schema";

export interface RoutableListing {
  hostId: string;
  enrolledAt: Date;
  modelId: string;
  relayKeyId: string;
  upstream: string;
  ciphertext: string;
  upstreamModelId: string;
  inputPer1m: bigint;
  outputPer1m: bigint;
  dailyCapMicrounits: bigint | null;
}

/**
 * Enabled listings for a canonical model on active hosts whose relay key is live, or every
 * model's when `modelId` is undefined (the public catalogue). Price caps and daily caps are
 * applied by the caller.
 */
export async function loadRoutableListings(executor: Executor, modelId?: string): Promise<RoutableListing[]> {
  const rows = await executor
    .select({
      hostId: relayListings.hostId,
      enrolledAt: hosts.enrolledAt,
      modelId: relayListings.modelId,
      relayKeyId: relayListings.relayKeyId,
      upstream: relayKeys.upstream,
      ciphertext: relayKeys.ciphertext,
      upstreamModelId: relayListings.upstreamModelId,
      inputPer1m: relayListings.inputPer1m,
      outputPer1m: relayListings.outputPer1m,
      dailyCapMicrounits: relayListings.dailyCapMicrounits,
    })
    .from(relayListings)
    .innerJoin(hosts, eq(hosts.id, relayListings.hostId))
    .innerJoin(relayKeys, eq(relayKeys.id, relayListings.relayKeyId))
    .where(
      and(
        modelId === undefined ? sql`true` : eq(relayListings.modelId, modelId),
        eq(relayListings.enabled, true),
        eq(hosts.status, "active"),
        isNull(relayKeys.revokedAt),
        isNotNull(relayKeys.ciphertext),
      ),
    );
  return rows.flatMap((row) => (row.ciphertext === null ? [] : [{ ...row, ciphertext: row.ciphertext }]));
}
