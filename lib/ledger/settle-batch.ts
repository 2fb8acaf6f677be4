import { sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { queryPrepared } from "../db/client";
import { newTimeOrderedUuid } from "../ids";
import type { ReceiptSlot } from "./receipt-slot";
import type { UpstreamExcessBooking, UsageRecordFields } from "./settle-inference";

/** One served request's settlement, charged out of a lease (a hold this process keeps for many requests). */
export interface LeaseSettlement {
  requestId: string;
  accountId: bigint;
  /** The hold the charge comes out of; when it is gone (a replay after its release), the free balance pays. */
  leaseId: string;
  /** What the request cost at the route's price. */
  cost: bigint;
  /** The part of the cost the account pays (the lease covered it when the request settled). */
  charged: bigint;
  treasuryAccountId: bigint;
  lossAccountId: bigint;
  /** Marketplace and relay routes: credited `providerSharePercent` of the charge. */
  providerAccountId?: bigint;
  providerSharePercent: bigint;
  /** Centralized routes: what the upstream reported beyond the bill, booked beside it. */
  upstreamExcess?: UpstreamExcessBooking;
  metadata: Record<string, unknown>;
  usageRecord: UsageRecordFields;
  /** The request's receipt, when it is signed before this settlement's batch is written. */
  receipt?: ReceiptSlot;
}

export interface SettleBatchResult {
  /**
   * How many were written now; the others were already settled (a replayed journal). A count, not
   * the ids: a row back per settlement was parsed on every batch for a replay's log line.
   */
  applied: number;
  /** Per lease: how much it was drawn down. */
  leasesDrawn: Map<string, bigint>;
  /** Per account whose balance moved: balance minus held afterwards. */
  available: Map<bigint, bigint>;
}

function asRecord(settlement: LeaseSettlement) {
  const { usage } = settlement.usageRecord;
  return {
    request_id: settlement.requestId,
    transaction_id: newTimeOrderedUuid(),
    account_id: settlement.accountId.toString(),
    lease_id: settlement.leaseId,
    cost: settlement.cost.toString(),
    charged: settlement.charged.toString(),
    shortfall: (settlement.cost - settlement.charged).toString(),
    provider_account: settlement.providerAccountId?.toString() ?? null,
    treasury_account: settlement.treasuryAccountId.toString(),
    loss_account: settlement.lossAccountId.toString(),
    provider_share: settlement.providerSharePercent.toString(),
    excess: (settlement.upstreamExcess?.amount ?? 0n).toString(),
    excess_account: settlement.upstreamExcess?.accountId.toString() ?? null,
    metadata: settlement.metadata,
    model: settlement.usageRecord.model,
    route: settlement.usageRecord.route,
    provider_id: settlement.usageRecord.providerId,
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_tokens: usage.cacheReadTokens,
    cache_write_tokens: usage.cacheWriteTokens,
    outcome: settlement.usageRecord.outcome,
    api_key_id: settlement.usageRecord.apiKeyId ?? null,
    receipt: settlement.receipt?.take() ?? null,
  };
}

/**
 * Writes many settlements in one statement: usage records, ledger transactions and entries,
 * the lease draw-downs and every account's balance. A request already settled (its usage
 * record exists) is skipped, so replaying a journal twice bills once. The charge beyond what
 * the account pays goes to the loss account and the treasury, as a single settlement does;
 * the receipts signed before the batch was written (`ReceiptSlot`) are stored with it;
 * a balance that cannot cover a charge fails the whole statement (the caller retries one by one).
 * The settlements' rows in the shared journal (`settlement_journal`) are deleted in the same statement.
 */
export async function settleBatch(executor: Executor, batch: LeaseSettlement[]): Promise<SettleBatchResult> {
  const rows = await queryPrepared<{ kind: string; key: string; value: string | bigint }>(
    executor,
    "settle_batch",
    sql`WITH input AS (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(batch.map(asRecord))}::jsonb) AS r(
            request_id text, transaction_id uuid, account_id bigint, lease_id text, cost bigint, charged bigint, shortfall bigint,
            provider_account bigint, treasury_account bigint, loss_account bigint, provider_share bigint,
            excess bigint, excess_account bigint, metadata jsonb, model text, route text, provider_id text, input_tokens bigint,
            output_tokens bigint, cache_read_tokens bigint, cache_write_tokens bigint, outcome text,
            api_key_id uuid, receipt text)
        ), locked AS (
          -- Every account row this statement moves, locked first and in id order, as a lease
          -- top-up locks its account before its hold: no two writers wait on each other in a circle.
          SELECT id FROM accounts
          WHERE id IN (SELECT account_id FROM input UNION SELECT treasury_account FROM input
                       UNION SELECT loss_account FROM input UNION SELECT provider_account FROM input
                       UNION SELECT excess_account FROM input)
          ORDER BY id FOR UPDATE
        ), fresh AS (
          INSERT INTO usage_records (request_id, account_id, model, route, provider_id, input_tokens, output_tokens,
                                     cache_read_tokens, cache_write_tokens, cost_microunits, outcome, api_key_id)
          SELECT request_id, account_id, model, route, provider_id, input_tokens, output_tokens,
                 cache_read_tokens, cache_write_tokens, charged, outcome, api_key_id FROM input
          WHERE (SELECT COUNT(*) FROM locked) >= 0
          ON CONFLICT (request_id) DO NOTHING
          RETURNING request_id
        ), applied AS (
          SELECT i.* FROM input AS i JOIN fresh USING (request_id)
        ), receipts AS (
          -- Receipts signed before this batch was written: in its statement, not one of their own.
          INSERT INTO usage_receipts (request_id, account_id, route, provider_id, jws)
          SELECT request_id, account_id, route, provider_id, receipt FROM applied WHERE receipt IS NOT NULL
          ON CONFLICT (request_id) DO NOTHING
        ), drawn AS (
          UPDATE holds AS h SET amount = h.amount - u.amount
          FROM (SELECT lease_id, SUM(charged)::bigint AS amount FROM applied GROUP BY lease_id) AS u
          WHERE h.id = u.lease_id AND h.amount >= u.amount AND u.amount > 0
          RETURNING h.id, h.account_id, u.amount
        ), txn AS (
          INSERT INTO ledger_transactions (id, kind, idempotency_key, metadata)
          SELECT transaction_id, 'inference', 'inference:' || request_id,
                 metadata || jsonb_build_object('cost', cost::text, 'shortfall', shortfall::text)
                 || CASE WHEN excess > 0 THEN jsonb_build_object('upstream_excess', excess::text) ELSE '{}'::jsonb END
          FROM applied WHERE charged > 0 OR shortfall > 0 OR excess > 0
          RETURNING id
        ), shares AS (
          SELECT t.id AS transaction_id, a.account_id, a.charged, a.shortfall, a.provider_account,
                 a.treasury_account, a.loss_account, a.excess, a.excess_account,
                 CASE WHEN a.provider_account IS NULL THEN 0 ELSE a.charged * a.provider_share / 100 END AS provider_amount
          FROM applied AS a JOIN txn AS t ON t.id = a.transaction_id
        ), parts AS (
          SELECT transaction_id, account_id, -charged AS amount FROM shares
          UNION ALL
          SELECT transaction_id, provider_account, provider_amount FROM shares WHERE provider_account IS NOT NULL
          UNION ALL
          SELECT transaction_id, treasury_account, charged - provider_amount + shortfall FROM shares
          UNION ALL
          SELECT transaction_id, loss_account, -shortfall FROM shares
          UNION ALL
          SELECT transaction_id, excess_account, -excess FROM shares WHERE excess_account IS NOT NULL
          UNION ALL
          SELECT transaction_id, treasury_account, excess FROM shares WHERE excess_account IS NOT NULL
        ), entries AS (
          INSERT INTO ledger_entries (transaction_id, account_id, amount)
          SELECT transaction_id, account_id, SUM(amount) FROM parts
          GROUP BY transaction_id, account_id HAVING SUM(amount) <> 0
          RETURNING 1
        ), moves AS (
          SELECT account_id, SUM(amount) AS balance_delta, 0 AS held_delta FROM parts GROUP BY account_id
          UNION ALL
          SELECT account_id, 0, -SUM(amount) FROM drawn GROUP BY account_id
        ), moved AS (
          UPDATE accounts AS a SET balance = a.balance + m.balance_delta, held = a.held + m.held_delta
          FROM (SELECT account_id, SUM(balance_delta)::bigint AS balance_delta, SUM(held_delta)::bigint AS held_delta
                FROM moves GROUP BY account_id) AS m
          WHERE a.id = m.account_id AND (m.balance_delta <> 0 OR m.held_delta <> 0)
          RETURNING a.id, a.balance - a.held AS available
        ), unjournaled AS (
          -- The ledger has these now: their journal rows go in the same commit, not in a
          -- statement of their own (a settlement reaches a batch only once its row committed).
          DELETE FROM settlement_journal WHERE request_id IN (SELECT request_id FROM input)
        )
        -- Data-modifying CTEs always run to completion, read or not.
        SELECT 'applied' AS kind, '' AS key, COUNT(*)::text AS value FROM applied
        UNION ALL SELECT 'drawn', id, amount::text FROM drawn
        UNION ALL SELECT 'available', id::text, available::text FROM moved`,
  );
  const result: SettleBatchResult = { applied: 0, leasesDrawn: new Map(), available: new Map() };
  for (const row of rows) {
    if (row.kind === "applied") result.applied = Number(row.value);
    else if (row.kind === "drawn") result.leasesDrawn.set(row.key, BigInt(row.value));
    else result.available.set(BigInt(row.key), BigInt(row.value));
  }
  return result;
}
