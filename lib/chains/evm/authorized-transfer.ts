import type { Hash, PublicClient, TransactionReceipt } from "viem";
import type { Database, Executor } from "../../db/client";
import { transactionUnless } from "../../db/rollback";
import { budgetDay, reserveFee, settleFee } from "../daily-fee-budget";
import { GAS_RESERVATION, gasBudget } from "./gas-budget";
import { checkTransferReceipt, type ExpectedTransfer, type TransferReceiptCheck } from "./transfer-receipt";

/**
 * One EIP-3009 transfer the gateway submits, exactly once, whoever asked for it (an x402
 * payment on Base, a Base deposit). After the caller's checks (`authorizationFault`):
 * 1. the claim (the caller's unique row for this authorization) and the gas reservation are
 *    written in one database transaction, so a second submission, in any process, stops at
 *    the claim and a day never goes past its gas budget;
 * 2. the transfer is submitted (by the caller's submitter: our settler, or a facilitator);
 * 3. its transaction hash is recorded on the claim, and the receipt awaited;
 * 4. the receipt's actual gas replaces the reservation;
 * 5. the receipt decides, never the submitter's word: this authorization used, and the value
 *    moved from the payer to the payee, or the claim fails.
 * What the value is worth to the payer (a payment's credit, a deposit's) is the caller's.
 */

/** What submitting a transfer came to. Throwing means its outcome is not known. */
export type Submission =
  | { type: "submitted"; hash: Hash }
  /** Known not to have reached the chain: refused in simulation or by the facilitator. */
  | { type: "refused"; reason: string; message: string; cause?: unknown };

/** Where a caller keeps its claims: one unique row per authorization, in its own table. */
export interface TransferClaims<C, R extends string> {
  /** Inside the claim's transaction: writes the claim and what must commit with it, or rolls back. */
  write(transaction: Executor, rollback: (reason: R) => never): Promise<C>;
  /** The transaction carrying the authorization is known. */
  submitted(claim: C, hash: Hash): Promise<void>;
  /** Nothing reached the chain: the claim is closed without a transfer. */
  abandon(claim: C): Promise<void>;
  /** Mined without paying what was authorized: the claim is final. */
  fail(claim: C, message: string): Promise<void>;
}

export type TransferOutcome<C, R extends string> =
  | { type: "not_claimed"; reason: R | "gas_budget_exhausted" }
  | { type: "refused"; claim: C; reason: string; message: string; cause?: unknown }
  /** The submitter threw: whether the transfer went out is not known, so the claim stays pending. */
  | { type: "unknown"; claim: C; error: unknown }
  /** Submitted, not mined within the wait: the claim stays pending with its hash. */
  | { type: "pending"; claim: C; hash: Hash }
  | { type: "rejected"; claim: C; hash: Hash; message: string }
  | { type: "transferred"; claim: C; hash: Hash; value: bigint };

export interface AuthorizedTransfer<C, R extends string> {
  database: Database;
  network: string;
  publicClient: Pick<PublicClient, "getGasPrice" | "waitForTransactionReceipt">;
  /** The settler's daily gas budget; undefined when someone else pays the gas (an external facilitator). */
  gasDailyBudgetWei: bigint | undefined;
  claims: TransferClaims<C, R>;
  submit(): Promise<Submission>;
  expected: ExpectedTransfer;
  /** How long a submitted transfer may take to be mined before the claim is left pending. */
  receiptTimeoutMs: number;
}

export async function runAuthorizedTransfer<C, R extends string>(
  transfer: AuthorizedTransfer<C, R>,
): Promise<TransferOutcome<C, R>> {
  const { database, network, claims } = transfer;
  const limit = transfer.gasDailyBudgetWei;
  const gas = gasBudget(network);
  const day = budgetDay(new Date());
  const reserved = limit === undefined ? 0n : GAS_RESERVATION * (await transfer.publicClient.getGasPrice());
  const claimed = await transactionUnless<C, R | "gas_budget_exhausted">(
    database,
    async (transaction, rollback) => {
      const claim = await claims.write(transaction, rollback);
      if (
        limit !== undefined &&
        !(await reserveFee(transaction, gas, { day, amount: reserved, dailyLimit: limit }))
      ) {
        rollback("gas_budget_exhausted");
      }
      return claim;
    },
  );
  if (claimed.type === "rolled_back") return { type: "not_claimed", reason: claimed.reason };
  const claim = claimed.value;
  const spent = async (spentWei: bigint) => {
    if (limit !== undefined) await settleFee(database, gas, { day, reserved, spent: spentWei });
  };

  let submission: Submission;
  try {
    submission = await transfer.submit();
  } catch (error) {
    return { type: "unknown", claim, error };
  }
  if (submission.type === "refused") {
    await claims.abandon(claim);
    await spent(0n);
    return { ...submission, claim };
  }
  const hash = submission.hash;
  await claims.submitted(claim, hash);
  const receipt = await transfer.publicClient
    .waitForTransactionReceipt({ hash, timeout: transfer.receiptTimeoutMs })
    .catch(() => undefined);
  if (!receipt) return { type: "pending", claim, hash };
  await spent(receipt.gasUsed * receipt.effectiveGasPrice);
  const checked = await concludeTransfer(claims, claim, receipt, transfer.expected);
  return checked.type === "rejected"
    ? { type: "rejected", claim, hash, message: checked.message }
    : { type: "transferred", claim, hash, value: checked.value };
}

/** Step 5 alone, for a claim finished later from a receipt read back (a resumed or adopted transfer). */
export async function concludeTransfer<C>(
  claims: Pick<TransferClaims<C, string>, "fail">,
  claim: C,
  receipt: Pick<TransactionReceipt, "status" | "logs">,
  expected: ExpectedTransfer,
): Promise<TransferReceiptCheck> {
  const checked = checkTransferReceipt(receipt, expected);
  if (checked.type === "rejected") await claims.fail(claim, checked.message);
  return checked;
}
