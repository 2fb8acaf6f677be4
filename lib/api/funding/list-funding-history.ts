import { listBaseDeposits } from "../../deposits/evm/list-base-deposits";
import { listCardPayments, listReceivables, listTokenDeposits } from "../../funding/queries";
import { jsonResponse } from "../../http/responses";
import { requireScope } from "../../tokens/key-scopes";
import type { ApiCall } from "../route-definition";

/** GET /proxy/<token>/funding/history – card payments, on-chain deposits (Solana, Base) and what is owed after refunds. */
export async function listFundingHistory(call: ApiCall<"token">): Promise<Response> {
  const { app, principal: record } = call;
  requireScope(record, "read");
  const db = app.database.db;
  const [cards, deposits, owed, baseDeposits] = await Promise.all([
    listCardPayments(db, record.accountId),
    listTokenDeposits(db, record.id),
    listReceivables(db, record.accountId),
    listBaseDeposits(db, record.id),
  ]);
  return jsonResponse(
    {
      card_payments: cards.map((card) => ({
        session_id: card.sessionId,
        status: card.status,
        credit_microunits: Number(card.credit),
        amount_total: Number(card.amountTotal),
        fee_amount: Number(card.fee),
        currency: card.currency,
        reversed_microunits: Number(card.reversed),
        created_at: card.createdAt.toISOString(),
        credited_at: card.creditedAt?.toISOString() ?? null,
      })),
      deposits: deposits.map((deposit) => ({
        signature: deposit.signature,
        network: deposit.network,
        amount_microunits: Number(deposit.amount),
        status: deposit.status,
        block_time: deposit.blockTime?.toISOString() ?? null,
        created_at: deposit.createdAt.toISOString(),
      })),
      base_deposits: baseDeposits.map((deposit) => ({
        network: deposit.network,
        payer: deposit.payer,
        amount_microunits: Number(deposit.amountMicrounits),
        status: deposit.status,
        reason: deposit.reason,
        transaction: deposit.transactionHash,
        created_at: deposit.createdAt.toISOString(),
        credited_at: deposit.creditedAt?.toISOString() ?? null,
      })),
      receivables: owed.map((item) => ({
        amount_microunits: Number(item.amount),
        outstanding_microunits: Number(item.outstanding),
        status: item.status,
        source: item.source,
        session_id: item.sessionId,
        created_at: item.createdAt.toISOString(),
      })),
      receivable_microunits: Number(owed.reduce((sum, item) => sum + item.outstanding, 0n)),
    },
    200,
    { "cache-control": "no-store" },
  );
}
