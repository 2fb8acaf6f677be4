import { sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { queryPrepared } from "../db/client";
import { newTimeOrderedUuid } from "../ids";
import type { Usage } from "../pricing/cost";

/** The usage row a settlement writes beside its ledger entries (one per request id). */
export interface UsageRecordFields {
  model: string;
  route: string;
  providerId: string;
  usage: Usage;
  outcome: string;
  /** The further API key that made the request, if not the token itself. */
  apiKeyId?: string;
}

/** What a request's ledger transaction records about it (its cost and shortfall are added when posted). */
export function inferenceMetadata(
  requestId: string,
  usageRecord: UsageRecordFields,
): Record<string, unknown> {
  return {
    request_id: requestId,
    model: usageRecord.model,
    route: usageRecord.route,
    provider: usageRecord.providerId,
    ...(usageRecord.apiKeyId === undefined ? {} : { api_key_id: usageRecord.apiKeyId }),
  };
}

/**
 * Usage a centralized upstream reported beyond what the gateway billed (the meter's caps cut
 * it), valued at the route's price: debited to the provider's upstream-excess account and
 * credited to the treasury, which owes the upstream its whole bill, in the settlement's own
 * transaction.
 */
export interface UpstreamExcessBooking {
  accountId: bigint;
  amount: bigint;
}

export interface SettleInferenceInput {
  holdId: string;
  accountId: bigint;
  /** What the request cost at the route's price, from the upstream's usage. */
  cost: bigint;
  /**
   * Charge beyond the hold from the free balance when the cost exceeds it (prepaid tokens).
   * False keeps the charge within the hold (x402: the quoted cap is a promise to the payer).
   */
  chargeBeyondHold: boolean;
  /**
   * The most the account may pay, whatever else covers: a lease settlement replayed after its
   * lease is gone pays what its hold covered when it settled, never its whole cost.
   */
  chargeLimit?: bigint;
  treasuryAccountId: bigint;
  /** Absorbs what the account could not cover (an external account, so it may go negative). */
  lossAccountId: bigint;
  /** Marketplace and relay routes: the provider's account, credited `providerSharePercent` of the charge. */
  providerAccountId?: bigint;
  providerSharePercent: bigint;
  upstreamExcess?: UpstreamExcessBooking;
  idempotencyKey: string;
  metadata: Record<string, unknown>;
  usageRecord: UsageRecordFields & { requestId: string };
}

export interface SettleInferenceResult {
  charged: bigint;
  /** Cost the account could not cover, posted to the loss account (0 almost always). */
  shortfall: bigint;
  /** Available balance after the charge (what other in-flight holds leave free). */
  availableAfter: bigint;
}

/**
 * Releases the hold, debits the charge, credits treasury and provider, writes the ledger
 * entries and the usage record: all in one statement, so it is atomic and costs a single
 * round trip on the hot path. The provider share rounds down; the treasury gets the rest.
 *
 * The charge is the cost, up to what the account can cover (the hold, plus its free balance
 * when `chargeBeyondHold` or when the hold is gone) and never past `chargeLimit`. Any remainder is never dropped: the same transaction debits it
 * to the loss account and credits the treasury, which owes the upstream the full cost.
 * Providers are paid their share of what was charged, not of a cost the payer never covered.
 */
export async function settleInference(
  executor: Executor,
  input: SettleInferenceInput,
): Promise<SettleInferenceResult> {
  const provider = input.providerAccountId ?? null;
  const excessAccount = input.upstreamExcess?.accountId ?? null;
  const excess = input.upstreamExcess?.amount ?? 0n;
  const { usage } = input.usageRecord;
  const rows = await queryPrepared<{
    charged: string | bigint;
    shortfall: string | bigint;
    balance: string | bigint;
    held: string | bigint;
  }>(
    executor,
    "settle_inference",
    sql`WITH released AS (
          DELETE FROM holds WHERE id = ${input.holdId} RETURNING amount
        ), user_account AS (
          UPDATE accounts AS a
          SET held = a.held - COALESCE((SELECT amount FROM released), 0),
              balance = a.balance - c.charged
          FROM (
            SELECT LEAST(${input.cost}::bigint, ${input.chargeLimit ?? input.cost}::bigint,
                         COALESCE((SELECT amount FROM released), 0)
                         + CASE WHEN ${input.chargeBeyondHold} OR NOT EXISTS (SELECT 1 FROM released)
                                THEN GREATEST((SELECT balance - held FROM accounts WHERE id = ${input.accountId}), 0)
                                ELSE 0 END) AS charged
          ) AS c
          WHERE a.id = ${input.accountId}
          RETURNING a.balance, a.held, c.charged, ${input.cost}::bigint - c.charged AS shortfall
        ), parts AS (
          SELECT ${input.accountId}::bigint AS account_id, -charged AS amount FROM user_account
          UNION ALL
          SELECT ${provider}::bigint, charged * ${input.providerSharePercent}::bigint / 100 FROM user_account WHERE ${provider}::bigint IS NOT NULL
          UNION ALL
          SELECT ${input.treasuryAccountId}::bigint,
                 charged - CASE WHEN ${provider}::bigint IS NULL THEN 0 ELSE charged * ${input.providerSharePercent}::bigint / 100 END
          FROM user_account
          UNION ALL
          SELECT ${input.lossAccountId}::bigint, -shortfall FROM user_account
          UNION ALL
          SELECT ${input.treasuryAccountId}::bigint, shortfall FROM user_account
          UNION ALL
          SELECT ${excessAccount}::bigint, -${excess}::bigint FROM user_account WHERE ${excessAccount}::bigint IS NOT NULL
          UNION ALL
          SELECT ${input.treasuryAccountId}::bigint, ${excess}::bigint FROM user_account WHERE ${excessAccount}::bigint IS NOT NULL
        ), txn AS (
          INSERT INTO ledger_transactions (id, kind, idempotency_key, metadata)
          SELECT ${newTimeOrderedUuid()}::uuid, 'inference', ${input.idempotencyKey},
                 ${JSON.stringify({ ...input.metadata, cost: input.cost.toString(), ...(excess > 0n ? { upstream_excess: excess.toString() } : {}) })}::jsonb || jsonb_build_object('shortfall', shortfall::text)
          FROM user_account WHERE charged > 0 OR shortfall > 0 OR ${excess}::bigint > 0
          RETURNING id
        ), entries AS (
          INSERT INTO ledger_entries (transaction_id, account_id, amount)
          SELECT txn.id, p.account_id, SUM(p.amount) FROM txn, parts AS p
          GROUP BY txn.id, p.account_id HAVING SUM(p.amount) <> 0
          RETURNING 1
        ), credited AS (
          UPDATE accounts AS a SET balance = a.balance + p.amount
          FROM (SELECT account_id, SUM(amount) AS amount FROM parts GROUP BY account_id) AS p
          WHERE a.id = p.account_id AND p.account_id <> ${input.accountId} AND p.amount <> 0 AND EXISTS (SELECT 1 FROM txn)
          RETURNING 1
        ), usage_row AS (
          INSERT INTO usage_records (request_id, account_id, model, route, provider_id, input_tokens, output_tokens,
                                     cache_read_tokens, cache_write_tokens, cost_microunits, outcome, api_key_id)
          SELECT ${input.usageRecord.requestId}, ${input.accountId}, ${input.usageRecord.model}, ${input.usageRecord.route},
                 ${input.usageRecord.providerId}, ${usage.inputTokens}, ${usage.outputTokens}, ${usage.cacheReadTokens},
                 ${usage.cacheWriteTokens}, charged, ${input.usageRecord.outcome}, ${input.usageRecord.apiKeyId ?? null}::uuid
          FROM user_account
          RETURNING 1
        )
        -- Data-modifying CTEs always run to completion, read or not.
        SELECT charged, shortfall, balance, held FROM user_account`,
  );
  const row = rows[0];
  if (!row) throw new Error(`account ${input.accountId} not found while settling`);
  return {
    charged: BigInt(row.charged),
    shortfall: BigInt(row.shortfall),
    availableAfter: BigInt(row.balance) - BigInt(row.held),
  };
}
