import { sql } from "drizzle-orm";
import type { Executor } from "../../db/client";
import { queryRows } from "../../db/client";
import type { Difference } from "./difference";

/**
 * Every credit a token's ledger account received from outside, against its external record:
 * a card credit has its Checkout session, an auto top-up its charge, a won dispute its payment,
 * an admin credit its operator and the operator log's line for it, a Solana deposit its
 * signature and a Base deposit its transaction (the chains themselves are the Solana and Base
 * sources' to read); a slash's refund to the callers a host served has its slash (the money is the
 * host's bond and earnings, already in the ledger). A credit with no such record, or of a kind nothing records, is a
 * difference of its full amount.
 */
export async function reconcileCredits(executor: Executor): Promise<Difference[]> {
  const rows = await queryRows<{ id: string; kind: string; amount: string }>(
    executor,
    sql`SELECT t.id::text AS id, t.kind, SUM(e.amount)::text AS amount
        FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
        JOIN accounts a ON a.id = e.account_id
        WHERE a.kind = 'token' AND e.amount > 0
          AND NOT CASE t.kind
            WHEN 'card_credit' THEN EXISTS (SELECT 1 FROM card_sessions s WHERE s.id = t.metadata->>'stripe_session_id')
            WHEN 'card_auto_top_up' THEN EXISTS (SELECT 1 FROM auto_top_up_charges c
                                                 WHERE c.payment_intent_id = t.metadata->>'stripe_payment_intent_id')
            WHEN 'card_dispute_won' THEN EXISTS (SELECT 1 FROM card_sessions s WHERE s.id = t.metadata->>'stripe_session_id')
                                      OR EXISTS (SELECT 1 FROM auto_top_up_charges c
                                                 WHERE c.id::text = t.metadata->>'stripe_auto_top_up_charge_id')
            WHEN 'admin_credit' THEN COALESCE(t.metadata->>'operator', '') <> ''
                                 AND EXISTS (SELECT 1 FROM operator_actions o
                                             WHERE o.action = 'credit' AND o.detail->>'transaction_id' = t.id::text)
            WHEN 'solana_deposit' THEN t.metadata->>'signature' IS NOT NULL
            WHEN 'solana_deposit_assigned' THEN t.metadata->>'signature' IS NOT NULL
            WHEN 'base_deposit' THEN t.metadata->>'transaction' IS NOT NULL
            WHEN 'host_slash_refund' THEN EXISTS (SELECT 1 FROM host_slashes h
                                                  WHERE t.idempotency_key = 'slash-refund:' || h.id::text)
            ELSE false END
        GROUP BY t.id, t.kind ORDER BY t.id`,
  );
  return rows.map((row) => ({
    source: "credits",
    reference: `ledger transaction ${row.id}`,
    microunits: -BigInt(row.amount),
    detail: `a credit of ${row.amount} microunits to a token (${row.kind}) has no external record (payment, deposit, or operator and operator-log line)`,
  }));
}
