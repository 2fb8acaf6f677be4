import { and, eq, isNull, sql } from "drizzle-orm";
import { getAddress, type Hash, type Hex, type TransactionReceipt } from "viem";
import { authorizationUsed, findAuthorizationTransaction } from "../chains/evm/authorization-state";
import { type AuthorizationFault, authorizationFault } from "../chains/evm/authorization-terms";
import {
  concludeTransfer,
  runAuthorizedTransfer,
  type TransferClaims,
} from "../chains/evm/authorized-transfer";
import type { Eip712Token } from "../chains/evm/constants";
import { authorizationKey, type TransferAuthorization } from "../chains/evm/eip3009";
import { settlerSubmitter } from "../chains/evm/settler-submit";
import type { ExpectedTransfer } from "../chains/evm/transfer-receipt";
import type { Database } from "../db/client";
import { baseDeposits } from "../db/schema";
import { badRequest, GatewayError } from "../errors/gateway-error";
import { log } from "../log";
import { postTokenCredit } from "../tokens/credit-token";
import type { TokenRecord } from "../tokens/find-token";
import type { BaseDepositServices } from "./base-deposit-config";
import { depositNonce } from "./base-deposit-nonce";

export type BaseDeposit = typeof baseDeposits.$inferSelect;

export type BaseDepositOutcome =
  | { type: "credited"; deposit: BaseDeposit }
  /** Submitted, not mined within the wait: send the same authorization again later to finish. */
  | { type: "pending"; deposit: BaseDeposit };

/** The smallest deposit: each one costs the operator a transaction's gas. */
export const MIN_BASE_DEPOSIT_MICROUNITS = 1_000_000n;
/** The outside-world account USDC deposits on Base come from. */
const baseDepositSource = { kind: "external", ref: "base-usdc-deposits" } as const;

function refused(reason: string, message: string): GatewayError {
  return badRequest(`${message}; nothing was credited`, {
    headers: { "x-should-retry": "false" },
    details: { reason },
  });
}

function conflict(reason: string, message: string, deposit?: BaseDeposit): GatewayError {
  return new GatewayError("conflict", message, {
    headers: { "x-should-retry": "false" },
    details: {
      reason,
      ...(deposit?.transactionHash ? { transaction: deposit.transactionHash } : {}),
      ...(deposit ? { status: deposit.status } : {}),
    },
  });
}

function baseGasBudgetExhausted(): GatewayError {
  return new GatewayError(
    "service_unavailable",
    "the gateway's daily gas budget on Base is exhausted: try the deposit again tomorrow (UTC), or fund by card; nothing was credited",
    { headers: { "x-should-retry": "false" }, details: { reason: "gas_budget_exhausted" } },
  );
}

/** One deposit's setting: the Base services, the USDC domain it is signed for, the token it funds. */
interface Depositing {
  services: BaseDepositServices;
  usdc: Eip712Token;
  token: TokenRecord;
}

/**
 * Funds `token` with a USDC transfer the payer signed as an EIP-3009 authorization to the
 * deposit address, exactly once. The checks that need no chain (recipient, amount, window,
 * the nonce's commitment to the token's deposit_code, the signature over the USDC domain);
 * then a claim this authorization already has is resumed, and one already used on-chain by
 * someone else is adopted; otherwise the one EVM transfer (`runAuthorizedTransfer`: claim and
 * gas reservation, submission by our settler, receipt) moves it, and the credit is posted in
 * one ledger transaction with the claim's move to `credited`.
 */
export async function submitBaseDeposit(
  database: Database,
  services: BaseDepositServices,
  token: TokenRecord,
  input: { authorization: TransferAuthorization; salt: Hex },
): Promise<BaseDepositOutcome> {
  const { authorization, salt } = input;
  const { chain } = services;
  const usdc = await chain.tokenDomain();
  const depositing: Depositing = { services, usdc, token };
  const fault = await authorizationFault(services.publicClient, authorization, {
    chainId: chain.chainId,
    token: usdc,
    payTo: services.depositAddress,
    minValue: MIN_BASE_DEPOSIT_MICROUNITS,
    nonce: depositNonce(token.depositCode, salt),
  });
  if (fault) throw faultRefusal(fault, depositing, authorization);
  const key = authorizationKey(usdc.address, authorization);

  const existing = await findDeposit(database, chain.network, key);
  if (existing) {
    const resumed = await resumeDeposit(database, depositing, existing);
    if (resumed.type !== "released") return resumed;
  }

  if (await authorizationUsed(services.publicClient, usdc.address, authorization)) {
    // Someone submitted it before us (anyone holding the signed authorization can): the USDC
    // still went to the deposit address, and the nonce names this token, so credit it once.
    return adoptSubmitted(database, depositing, { authorization, salt, key });
  }

  const outcome = await runAuthorizedTransfer({
    database,
    network: chain.network,
    publicClient: chain.publicClient,
    gasDailyBudgetWei: services.gasDailyBudgetWei,
    claims: {
      ...depositRows(database),
      async write(transaction, rollback: (reason: "claim_taken") => never) {
        const [inserted] = await transaction
          .insert(baseDeposits)
          .values(claimRow(depositing, { authorization, salt, key }))
          .onConflictDoNothing({ target: [baseDeposits.network, baseDeposits.authorizationKey] })
          .returning();
        return inserted ?? rollback("claim_taken");
      },
    },
    submit: settlerSubmitter({
      publicClient: chain.publicClient,
      wallet: services.wallet,
      chain: chain.chain,
      settler: services.settler,
      token: usdc.address,
      authorization,
    }),
    expected: expectedTransfer(depositing, authorization),
    receiptTimeoutMs: services.receiptTimeoutMs,
  });
  switch (outcome.type) {
    case "not_claimed":
      if (outcome.reason === "claim_taken") return resumeWinner(database, depositing, key);
      throw baseGasBudgetExhausted();
    case "refused":
      if (outcome.reason !== "submission_failed") {
        throw refused(outcome.reason, `the USDC contract refuses this transfer (${outcome.message})`);
      }
      log.warn("base deposit: submission failed", {
        error: outcome.cause,
        deposit: outcome.claim.id.toString(),
      });
      throw new GatewayError(
        "upstream_error",
        "the deposit could not be submitted to Base; nothing was credited, try again",
        { details: { reason: "submission_failed" } },
      );
    case "unknown":
      // The settler's submitter answers every failure; a claim left like this resumes from the chain.
      return { type: "pending", deposit: outcome.claim };
    case "pending":
      return { type: "pending", deposit: { ...outcome.claim, transactionHash: outcome.hash } };
    case "rejected":
      throw transferFailed(outcome.hash, outcome.message);
    case "transferred":
      return creditDeposit(database, token, { ...outcome.claim, transactionHash: outcome.hash });
    default: {
      const unreachable: never = outcome;
      return unreachable;
    }
  }
}

function faultRefusal(
  fault: AuthorizationFault,
  { services, usdc }: Depositing,
  authorization: TransferAuthorization,
): GatewayError {
  switch (fault) {
    case "recipient":
      return refused(
        "recipient_mismatch",
        `the authorization pays ${authorization.to}, not this gateway's deposit address ${services.depositAddress}`,
      );
    case "below_minimum":
      return refused(
        "below_minimum",
        `a deposit must be at least ${MIN_BASE_DEPOSIT_MICROUNITS} microunits (1 USDC), not ${authorization.value}`,
      );
    case "not_yet_valid":
      return refused("valid_after", "the authorization is not valid yet (validAfter is in the future)");
    case "expired":
    case "outlives_terms":
      return refused(
        "valid_before",
        "the authorization has expired (validBefore has passed or is too close)",
      );
    case "nonce":
      return refused(
        "nonce_not_committed",
        'the authorization\'s nonce is not keccak256("usepod-deposit:" + deposit_code + ":" + salt) for this token and salt',
      );
    case "signature":
      return refused(
        "invalid_signature",
        `the signature does not recover to ${authorization.from} for USDC ${usdc.address} on ${services.chain.network}`,
      );
  }
}

function transferFailed(hash: string | null, message: string): GatewayError {
  return refused("transfer_failed", `transaction ${hash} did not deposit: ${message}`);
}

function expectedTransfer(
  { services, usdc }: Depositing,
  authorization: { from: string; nonce: string; value: bigint },
): ExpectedTransfer {
  return {
    token: usdc.address,
    from: getAddress(authorization.from),
    to: services.depositAddress,
    nonce: authorization.nonce as Hex,
    minValue: authorization.value,
  };
}

/** The claim row of an authorization: its unique key, the token it funds, and what it moves. */
function claimRow(
  { services, token }: Depositing,
  input: { authorization: TransferAuthorization; salt: Hex; key: string },
): typeof baseDeposits.$inferInsert {
  return {
    network: services.chain.network,
    authorizationKey: input.key,
    tokenId: token.id,
    accountId: token.accountId,
    payer: getAddress(input.authorization.from),
    amountMicrounits: input.authorization.value,
    nonce: input.authorization.nonce.toLowerCase(),
    salt: input.salt.toLowerCase(),
    status: "pending",
  };
}

/** A deposit claim's moves, each only from `pending`, so concurrent finishers agree. */
function depositRows(database: Database): Omit<TransferClaims<BaseDeposit, never>, "write"> {
  const pending = (deposit: BaseDeposit) =>
    and(eq(baseDeposits.id, deposit.id), eq(baseDeposits.status, "pending"));
  return {
    async submitted(deposit: BaseDeposit, hash: Hash) {
      await database
        .update(baseDeposits)
        .set({ transactionHash: hash, updatedAt: sql`now()` })
        .where(pending(deposit));
    },
    // Nothing reached the chain: the authorization is still unused and may be sent again.
    async abandon(deposit: BaseDeposit) {
      await database.delete(baseDeposits).where(pending(deposit));
    },
    async fail(deposit: BaseDeposit, message: string) {
      await database
        .update(baseDeposits)
        .set({ status: "failed", reason: message, updatedAt: sql`now()` })
        .where(pending(deposit));
    },
  };
}

async function findDeposit(
  database: Database,
  network: string,
  key: string,
): Promise<BaseDeposit | undefined> {
  const [row] = await database
    .select()
    .from(baseDeposits)
    .where(and(eq(baseDeposits.network, network), eq(baseDeposits.authorizationKey, key)));
  return row;
}

/** Another request claimed it first: report what that one has done so far. */
async function resumeWinner(
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

/**
 * A transfer of the authorized value to the deposit address credits the token. The move to
 * `credited` and the ledger posting commit together, and only from `pending`, so concurrent
 * finishers credit once.
 */
async function creditDeposit(
  database: Database,
  token: TokenRecord,
  deposit: BaseDeposit,
): Promise<BaseDepositOutcome> {
  const credited = await database.transaction(async (transaction) => {
    const [row] = await transaction
      .update(baseDeposits)
      .set({ status: "credited", creditedAt: new Date(), updatedAt: sql`now()` })
      .where(and(eq(baseDeposits.id, deposit.id), eq(baseDeposits.status, "pending")))
      .returning();
    if (!row) return undefined;
    await postTokenCredit(transaction, {
      tokenId: token.id,
      accountId: token.accountId,
      amount: row.amountMicrounits,
      kind: "base_deposit",
      source: baseDepositSource,
      idempotencyKey: `base-deposit:${row.network}:${row.authorizationKey}`,
      metadata: {
        reason: "USDC deposit on Base",
        network: row.network,
        transaction: deposit.transactionHash,
        payer: row.payer,
        nonce: row.nonce,
      },
    });
    return row;
  });
  if (!credited) {
    const now = await findDeposit(database, deposit.network, deposit.authorizationKey);
    throw conflict(
      "already_credited",
      "this authorization was already credited to this token; nothing more was credited",
      now ?? deposit,
    );
  }
  return { type: "credited", deposit: credited };
}
