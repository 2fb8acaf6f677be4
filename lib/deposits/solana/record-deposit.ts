import { and, eq, inArray, sql } from "drizzle-orm";
import { type Database, type Executor, queryRows } from "../../db/client";
import { apiTokens, chainDeposits, hosts } from "../../db/schema";
import { bondAmountMicrounits } from "../../hosts/bond";
import { ensureAccount, getAccountBalance, systemAccounts } from "../../ledger/accounts";
import { postTransaction } from "../../ledger/post-transaction";
import { postTokenCredit } from "../../tokens/credit-token";
import { parseDepositCode, type UnmatchedReason } from "../core/deposit-code";
import type { DepositReading } from "./read-deposit-transaction";

export type RecordedDeposit =
  | { outcome: "credited"; tokenId: string; amount: bigint }
  | { outcome: "bonded"; hostId: string; amount: bigint; activated: boolean }
  | { outcome: "unmatched"; reason: UnmatchedReason; amount: bigint }
  /** This signature was recorded before (an earlier scan, another replica): nothing posted. */
  | { outcome: "duplicate" };

type Arrival = Extract<DepositReading, { type: "arrival" }>;

/**
 * Records one arrival exactly once, keyed by its signature: the `chain_deposits` row, the
 * ledger posting and a bond's host activation commit together, and a second attempt (a
 * replayed scan, a restart mid-scan, two watchers at once) finds the row and posts nothing.
 * The ledger posting carries the same signature as its idempotency key, a second guard.
 */
export async function recordDeposit(
  database: Database,
  input: { signature: string; network: string; arrival: Arrival },
): Promise<RecordedDeposit> {
  return database.transaction(async (transaction) => {
    const { arrival, signature } = input;
    const decision = (await settledX402Quote(transaction, signature))
      ? unmatchedArrival(arrival, "x402_payment")
      : await decide(transaction, arrival);
    const inserted = await transaction
      .insert(chainDeposits)
      .values({
        signature,
        network: input.network,
        slot: arrival.slot,
        blockTime: arrival.blockTime,
        memo: arrival.memos.length > 0 ? arrival.memos.join("\n") : null,
        mint: arrival.mint,
        amount: arrival.amount,
        sender: arrival.sender,
        status: decision.outcome,
        reason: decision.outcome === "unmatched" ? decision.reason : null,
        tokenId: decision.outcome === "credited" ? decision.tokenId : null,
        hostId: decision.outcome === "bonded" ? decision.hostId : null,
        suspenseMicrounits: decision.outcome === "unmatched" ? decision.suspense : 0n,
      })
      .onConflictDoNothing({ target: chainDeposits.signature })
      .returning({ signature: chainDeposits.signature });
    if (!inserted[0]) return { outcome: "duplicate" };

    const idempotencyKey = `solana:deposit:${signature}`;
    const metadata = { signature, slot: arrival.slot.toString(), memo: arrival.memos.join("\n") || null };
    switch (decision.outcome) {
      case "credited":
        await postTokenCredit(transaction, {
          tokenId: decision.tokenId,
          accountId: decision.accountId,
          amount: arrival.amount,
          kind: "solana_deposit",
          source: systemAccounts.solanaDeposits,
          idempotencyKey,
          metadata: { reason: "USDC deposit on Solana", ...metadata },
        });
        return { outcome: "credited", tokenId: decision.tokenId, amount: arrival.amount };
      case "bonded": {
        const bond = await ensureAccount(transaction, "bond", decision.hostId);
        await postFromDeposits(transaction, bond, {
          kind: "host_bond_deposit",
          amount: arrival.amount,
          idempotencyKey,
          metadata: { host_id: decision.hostId, ...metadata },
        });
        const activated = await activateWhenBonded(transaction, decision.hostId, bond);
        return { outcome: "bonded", hostId: decision.hostId, amount: arrival.amount, activated };
      }
      case "unmatched":
        if (decision.suspense > 0n) {
          const { kind, ref } = systemAccounts.depositSuspense;
          await postFromDeposits(transaction, await ensureAccount(transaction, kind, ref), {
            kind: "solana_deposit_suspense",
            amount: decision.suspense,
            idempotencyKey,
            metadata: { reason: decision.reason, ...metadata },
          });
        }
        return { outcome: "unmatched", reason: decision.reason, amount: arrival.amount };
    }
  });
}

/** Moves `amount` from the outside world's Solana deposits account to `to`. */
async function postFromDeposits(
  transaction: Executor,
  to: bigint,
  posting: { kind: string; amount: bigint; idempotencyKey: string; metadata: Record<string, unknown> },
): Promise<void> {
  const { kind, ref } = systemAccounts.solanaDeposits;
  const source = await ensureAccount(transaction, kind, ref);
  await postTransaction(transaction, {
    kind: posting.kind,
    idempotencyKey: posting.idempotencyKey,
    metadata: posting.metadata,
    entries: [
      { accountId: source, amount: -posting.amount },
      { accountId: to, amount: posting.amount },
    ],
  });
}

type Decision =
  | { outcome: "credited"; tokenId: string; accountId: bigint }
  | { outcome: "bonded"; hostId: string }
  | { outcome: "unmatched"; reason: UnmatchedReason; suspense: bigint };

const unmatchedArrival = (arrival: Arrival, reason: UnmatchedReason): Decision => ({
  outcome: "unmatched",
  reason,
  suspense: arrival.asset === "usdc" ? arrival.amount : 0n,
});

/**
 * Whether this transaction paid an x402 quote (read from the payment tables, whichever rail
 * wrote them): its transfer already bought inference, so crediting it to the token in its memo
 * would count one transfer twice. It is parked for the operator instead.
 */
async function settledX402Quote(executor: Executor, signature: string): Promise<boolean> {
  const rows = await queryRows<{ found: number }>(
    executor,
    sql`SELECT 1 AS found FROM x402_payments WHERE signature = ${signature}
        UNION ALL SELECT 1 FROM x402_quotes WHERE consumed_by = ${signature} LIMIT 1`,
  );
  return rows.length > 0;
}

/** Whose deposit this is. Only USDC that arrived ever reaches the ledger (a token, a bond or suspense). */
async function decide(executor: Executor, arrival: Arrival): Promise<Decision> {
  const unmatched = (reason: UnmatchedReason): Decision => unmatchedArrival(arrival, reason);
  if (arrival.asset === "other_asset") return unmatched("other_asset");
  if (arrival.asset === "zero_amount" || arrival.amount <= 0n) return unmatched("zero_amount");
  const code = parseDepositCode(arrival.memos);
  if ("reason" in code) return unmatched(code.reason);
  if (code.kind === "token") {
    const [token] = await executor
      .select({ id: apiTokens.id, accountId: apiTokens.accountId })
      .from(apiTokens)
      .where(eq(apiTokens.depositCode, code.code));
    return token
      ? { outcome: "credited", tokenId: token.id, accountId: token.accountId }
      : unmatched("unknown_code");
  }
  const [host] = await executor
    .select({ id: hosts.id, status: hosts.status })
    .from(hosts)
    .where(eq(hosts.bondDepositCode, code.code));
  if (!host) return unmatched("unknown_code");
  // A bond sent after retirement would never be returned by the cooldown: an operator decides.
  if (host.status === "retiring" || host.status === "retired") return unmatched("host_retired");
  return { outcome: "bonded", hostId: host.id };
}

/** A pending host becomes routable once its bond account holds the full bond. */
async function activateWhenBonded(
  executor: Executor,
  hostId: string,
  bondAccountId: bigint,
): Promise<boolean> {
  const { balance } = await getAccountBalance(executor, bondAccountId);
  if (balance < bondAmountMicrounits) return false;
  const updated = await executor
    .update(hosts)
    .set({ status: "active", activatedAt: sql`COALESCE(${hosts.activatedAt}, now())` })
    .where(and(eq(hosts.id, hostId), inArray(hosts.status, ["pending"])))
    .returning({ id: hosts.id });
  return updated.length > 0;
}
