import { and, eq, isNull } from "drizzle-orm";
import { getAddress, type Hash, type Hex, type TransactionReceipt } from "viem";
import { authorizationUsed, findAuthorizationTransaction } from "../../chains/evm/authorization-state";
import { concludeTransfer } from "../../chains/evm/authorized-transfer";
import type { TransferAuthorization } from "../../chains/evm/eip3009";
import type { Database } from "../../db/client";
import { baseDeposits } from "../../db/schema";
import { conflict, transferFailed } from "./base-deposit-errors";
import {
  type BaseDeposit,
  type BaseDepositOutcome,
  claimRow,
  creditDeposit,
  type Depositing,
  depositRows,
  expectedTransfer,
  findDeposit,
} from "./base-deposit-records";

/**
 * A Base deposit whose authorization was seen before: claimed by an earlier (or concurrent)
 * submission, or already used on-chain by a transaction someone else sent. The chain decides
 * what it came to; the token is credited once, whoever submitted it.
 */

/**
 * An authorization seen before: a claim it already has is resumed (undefined when a stale,
 * unused one was released to be sent anew), and one already used on-chain by someone else is
 * adopted; undefined when it is new and ours to submit.
 */
export async function resumeSeen(
  database: Database,
  depositing: Depositing,
  input: { authorization: TransferAuthorization; salt: Hex; key: string },
): Promise<BaseDepositOutcome | undefined> {
  const { services, usdc } = depositing;
  const existing = await findDeposit(database, services.chain.network, input.key);
  if (existing) {
    const resumed = await resumeDeposit(database, depositing, existing);
    if (resumed.type !== "released") return resumed;
  }
  if (await authorizationUsed(services.publicClient, usdc.address, input.authorization)) {
    // Someone submitted it before us (anyone holding the signed authorization can): the USDC
    // still went to the deposit address, and the nonce names this token, so credit it once.
    return adoptSubmitted(database, depositing, input);
  }
  return undefined;
}

/** Another request claimed it first: report what that one has done so far. */
export async function resumeWinner(
  database: Database,
  depositing: Depositing,
  key: string,
): Promise<BaseDepositOutcome> {
  const winner = await findDeposit(database, depositing.services.chain.network, key);
  const resumed = winner ? await resumeDeposit(database, depositing, winner) : undefined;
  if (!resumed || resumed.type === "released") {
    throw conflict(
      "in_progress",
      "this authorization is being submitted by another request; send it again shortly",
    );
  }
  return resumed;
}

/**
 * An authorization already used on-chain by a transaction someone else sent: claim it with
 * that transaction (the same unique row, so it is credited once) and let its receipt decide.
 */
async function adoptSubmitted(
  database: Database,
  depositing: Depositing,
  input: { authorization: TransferAuthorization; salt: Hex; key: string },
): Promise<BaseDepositOutcome> {
  const { services, usdc } = depositing;
  const hash = await findAuthorizationTransaction(services.publicClient, usdc.address, input.authorization);
  if (!hash) {
    throw conflict(
      "nonce_already_used",
      "this authorization's nonce is already used on-chain and its transaction is not among recent blocks; nothing was credited",
    );
  }
  const [claimed] = await database
    .insert(baseDeposits)
    .values({ ...claimRow(depositing, input), transactionHash: hash })
    .onConflictDoNothing({ target: [baseDeposits.network, baseDeposits.authorizationKey] })
    .returning();
  if (!claimed) return resumeWinner(database, depositing, input.key);
  const receipt = await services.publicClient.getTransactionReceipt({ hash });
  return finishDeposit(database, depositing, claimed, receipt);
}

/** A claim without a transaction this long is stale: its submitter crashed or lost the answer. */
const STALE_CLAIM_MS = 120_000;

/**
 * A second submission of a claimed authorization: report it, or finish it from its receipt.
 * A stale claim without a transaction is settled from the chain: adopted with the transaction
 * that used the authorization, or `released` (deleted) when it is still unused, to be sent anew.
 */
async function resumeDeposit(
  database: Database,
  depositing: Depositing,
  deposit: BaseDeposit,
): Promise<BaseDepositOutcome | { type: "released" }> {
  const { services, usdc, token } = depositing;
  if (deposit.tokenId !== token.id) {
    throw conflict("already_claimed", "this authorization was already submitted for another token", deposit);
  }
  if (deposit.status === "credited") {
    throw conflict(
      "already_credited",
      `this authorization was already credited to this token (${deposit.amountMicrounits} microunits); nothing more was credited`,
      deposit,
    );
  }
  if (deposit.status === "failed") {
    throw conflict(
      "transfer_failed",
      `this authorization's transfer failed on-chain (${deposit.reason ?? "reverted"}); sign a new one`,
      deposit,
    );
  }
  if (!deposit.transactionHash) {
    if (Date.now() - deposit.updatedAt.getTime() < STALE_CLAIM_MS) {
      throw conflict(
        "in_progress",
        "this authorization is being submitted by another request; send it again shortly",
        deposit,
      );
    }
    const authorization = { from: getAddress(deposit.payer), nonce: deposit.nonce as Hex };
    if (!(await authorizationUsed(services.publicClient, usdc.address, authorization))) {
      await database
        .delete(baseDeposits)
        .where(
          and(
            eq(baseDeposits.id, deposit.id),
            eq(baseDeposits.status, "pending"),
            isNull(baseDeposits.transactionHash),
          ),
        );
      return { type: "released" };
    }
    const hash = await findAuthorizationTransaction(services.publicClient, usdc.address, authorization);
    if (!hash) {
      throw conflict(
        "in_progress",
        "this authorization's transaction is not found yet; send it again later",
        deposit,
      );
    }
    await depositRows(database).submitted(deposit, hash);
    deposit = { ...deposit, transactionHash: hash };
  }
  const receipt = await services.publicClient
    .getTransactionReceipt({ hash: deposit.transactionHash as Hash })
    .catch(() => undefined);
  if (!receipt) return { type: "pending", deposit };
  return finishDeposit(database, depositing, deposit, receipt);
}

/** A receipt read back (an adopted or resumed transfer) decides the claim, as a submitted one's does. */
async function finishDeposit(
  database: Database,
  depositing: Depositing,
  deposit: BaseDeposit,
  receipt: Pick<TransactionReceipt, "status" | "logs">,
): Promise<BaseDepositOutcome> {
  const checked = await concludeTransfer(
    depositRows(database),
    deposit,
    receipt,
    expectedTransfer(depositing, {
      from: deposit.payer,
      nonce: deposit.nonce,
      value: deposit.amountMicrounits,
    }),
  );
  if (checked.type === "rejected") throw transferFailed(deposit.transactionHash, checked.message);
  return creditDeposit(database, depositing.token, deposit);
}
