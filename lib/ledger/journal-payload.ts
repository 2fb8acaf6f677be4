import { z } from "zod";
import type { LeaseSettlement } from "./settle-batch";
import { inferenceMetadata } from "./settle-inference";

/**
 * A decimal integer. Rows written before this payload existed carry bigints as "123n" (the file
 * journal's form); a replica bills those too, so the suffix is accepted.
 */
const decimal = z
  .string()
  .regex(/^-?\d{1,30}n?$/)
  .transform((text) => BigInt(text.endsWith("n") ? text.slice(0, -1) : text));
const tokens = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const name = z.string().min(1).max(500);

/** A settlement as a `settlement_journal` row keeps it: its request id is the row's key. */
const journalPayload = z.object({
  accountId: decimal,
  leaseId: name,
  cost: decimal,
  charged: decimal,
  treasuryAccountId: decimal,
  lossAccountId: decimal,
  providerAccountId: decimal.optional(),
  providerSharePercent: decimal,
  upstreamExcess: z.object({ accountId: decimal, amount: decimal }).optional(),
  model: name,
  route: name,
  providerId: name,
  usage: z.object({
    inputTokens: tokens,
    outputTokens: tokens,
    cacheReadTokens: tokens,
    cacheWriteTokens: tokens,
  }),
  outcome: name,
  apiKeyId: name.optional(),
});

const asText = (value: bigint | undefined) => (value === undefined ? undefined : value.toString());

/**
 * Only what a replay needs, flat: the metadata the ledger transaction gets is rebuilt from the
 * usage record on the way back, so it is not stored twice.
 */
export function toJournalPayload(settlement: LeaseSettlement) {
  const { usageRecord } = settlement;
  return {
    accountId: settlement.accountId.toString(),
    leaseId: settlement.leaseId,
    cost: settlement.cost.toString(),
    charged: settlement.charged.toString(),
    treasuryAccountId: settlement.treasuryAccountId.toString(),
    lossAccountId: settlement.lossAccountId.toString(),
    providerAccountId: asText(settlement.providerAccountId),
    providerSharePercent: settlement.providerSharePercent.toString(),
    upstreamExcess: settlement.upstreamExcess && {
      accountId: settlement.upstreamExcess.accountId.toString(),
      amount: settlement.upstreamExcess.amount.toString(),
    },
    model: usageRecord.model,
    route: usageRecord.route,
    providerId: usageRecord.providerId,
    usage: usageRecord.usage,
    outcome: usageRecord.outcome,
    apiKeyId: usageRecord.apiKeyId,
  };
}

/** An older row is the whole settlement, its usage record nested: flattened, it reads the same. */
function flattened(payload: unknown): unknown {
  if (typeof payload !== "object" || payload === null || !("usageRecord" in payload)) return payload;
  const { usageRecord, ...rest } = payload;
  return typeof usageRecord === "object" ? { ...rest, ...usageRecord } : payload;
}

/** A journal row back to its settlement; throws on a row that is not one (nothing is billed from it). */
export function fromJournalPayload(requestId: string, payload: unknown): LeaseSettlement {
  const parsed = journalPayload.safeParse(flattened(payload));
  if (!parsed.success)
    throw new Error(`settlement_journal row ${requestId} is not a settlement: ${parsed.error.message}`);
  const {
    model,
    route,
    providerId,
    usage,
    outcome,
    apiKeyId,
    providerAccountId,
    upstreamExcess,
    ...amounts
  } = parsed.data;
  const usageRecord = {
    model,
    route,
    providerId,
    usage,
    outcome,
    ...(apiKeyId === undefined ? {} : { apiKeyId }),
  };
  return {
    ...amounts,
    requestId,
    ...(providerAccountId === undefined ? {} : { providerAccountId }),
    ...(upstreamExcess === undefined ? {} : { upstreamExcess }),
    metadata: inferenceMetadata(requestId, usageRecord),
    usageRecord,
  };
}
