import { and, asc, eq } from "drizzle-orm";
import type { Executor } from "../db/client";
import { relayKeys, relayListings } from "../db/schema";

export interface ListingView {
  modelId: string;
  relayKeyId: string;
  upstream: string;
  upstreamModelId: string;
  inputPer1m: bigint;
  outputPer1m: bigint;
  enabled: boolean;
  dailyCapMicrounits: bigint | null;
  updatedAt: Date;
}

export interface UpsertListingInput {
  hostId: string;
  modelId: string;
  relayKeyId: string;
  upstreamModelId: string;
  inputPer1m: bigint;
  outputPer1m: bigint;
  enabled: boolean;
  dailyCapMicrounits: bigint | null;
}

/** Creates or replaces the host's one listing for a canonical model. */
export async function upsertListing(executor: Executor, input: UpsertListingInput): Promise<void> {
  const values = {
    relayKeyId: input.relayKeyId,
    upstreamModelId: input.upstreamModelId,
    inputPer1m: input.inputPer1m,
    outputPer1m: input.outputPer1m,
    enabled: input.enabled,
    dailyCapMicrounits: input.dailyCapMicrounits,
    updatedAt: new Date(),
  };
  await executor
    .insert(relayListings)
    .values({ hostId: input.hostId, modelId: input.modelId, ...values })
    .onConflictDoUpdate({ target: [relayListings.hostId, relayListings.modelId], set: values });
}

export async function listListings(executor: Executor, hostId: string): Promise<ListingView[]> {
  return executor
    .select({
      modelId: relayListings.modelId,
      relayKeyId: relayListings.relayKeyId,
      upstream: relayKeys.upstream,
      upstreamModelId: relayListings.upstreamModelId,
      inputPer1m: relayListings.inputPer1m,
      outputPer1m: relayListings.outputPer1m,
      enabled: relayListings.enabled,
      dailyCapMicrounits: relayListings.dailyCapMicrounits,
      updatedAt: relayListings.updatedAt,
    })
    .from(relayListings)
    .innerJoin(relayKeys, eq(relayKeys.id, relayListings.relayKeyId))
    .where(eq(relayListings.hostId, hostId))
    .orderBy(asc(relayListings.modelId));
}

/** Removes the host's listing for a model; false when there was none. */
export async function deleteListing(executor: Executor, hostId: string, modelId: string): Promise<boolean> {
  const deleted = await executor
    .delete(relayListings)
    .where(and(eq(relayListings.hostId, hostId), eq(relayListings.modelId, modelId)))
    .returning({ id: relayListings.id });
  return deleted.length > 0;
}
