import { and, eq, isNull, sql } from "drizzle-orm";
import { BaseError, ContractFunctionRevertedError, getAddress, type Hash, type Hex } from "viem";
import type { Eip712Token } from "../chains/evm/constants";
import {
  authorizationKey,
  eip3009Abi,
  signedByPayer,
  type TransferAuthorization,
} from "../chains/evm/eip3009";
import { checkTransferReceipt } from "../chains/evm/transfer-receipt";
import type { Database } from "../db/client";
import { baseDeposits } from "../db/schema";
import { badRequest, GatewayError } from "../errors/gateway-error";
import { log } from "../log";
import { postTokenCredit } from "../tokens/credit-token";
import type { TokenRecord } from "../tokens/find-token";
import { budgetDay } from "../x402/fee-budget";
import { adjustGas, reserveGas } from "../x402/gas-budget";
import type { BaseDepositServices } from "./base-deposit-config";
import { depositNonce } from "./base-deposit-nonce";

export type BaseDeposit = typeof baseDeposits.$inferSelect;

export type BaseDepositOutcome =
  | { type: "credited"; deposit: BaseDeposit }
  /** Submitted, not mined within the wait: send the same authorization again later to finish. */
  | { type: "pending"; deposit: BaseDeposit };

/** The smallest deposit: each one costs the operator a transaction's gas. */
export const MIN_BASE_DEPOSIT_MICROUNITS = 1_000_000n;
/** An authorization must stay valid at least this long, or it could expire before it is mined. */
const MIN_VALIDITY_SECONDS = 10n;
/** Worst-case gas of one transferWithAuthorization, reserved from the daily budget before submission. */
const GAS_RESERVATION = 150_000n;
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

/**
 * Funds `token` with a USDC transfer the payer signed as an EIP-3009 authorization to the
 * deposit address, exactly once. Order: checks that need no chain (recipient, amount, window,
 * the nonce's commitment to the token's deposit_code, the signature over the USDC domain);
 * the authorization still unused on-chain; then the claim row and the gas reservation in one
 * database transaction (the unique claim is what makes a second submission, in any process,
 * stop here); a simulation; the submission; the receipt, which must show this authorization
 * used and the value moved to the deposit address; and the credit, in one ledger transaction
 * with the claim's move to `credited`.
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
  await checkAuthorization(services, usdc, token, authorization, salt);
  const key = authorizationKey(usdc.address, authorization);

  const existing = await findDeposit(database, chain.network, key);
  if (existing) {
    const resumed = await resumeDeposit(database, services, usdc, token, existing);
    if (resumed.type !== "released") return resumed;
  }

  if (await authorizationUsed(services, usdc, authorization)) {
    // Someone submitted it before us (anyone holding the signed authorization can): the USDC
    // still went to the deposit address, and the nonce names this token, so credit it once.
    return adoptSubmitted(database, services, usdc, token, { authorization, salt, key });
  }

  const day = budgetDay(new Date());
  const reservedWei = GAS_RESERVATION * (await chain.publicClient.getGasPrice());
  const claim = await claimDeposit(database, services, token, { authorization, salt, key, day, reservedWei });
  if (claim.type === "taken") return resumeWinner(database, services, usdc, token, key);
  const deposit = claim.deposit;

  const abandon = async (error: GatewayError): Promise<never> => {
    // Nothing reached the chain: the authorization is still unused and may be sent again.
    await database
      .delete(baseDeposits)
      .where(and(eq(baseDeposits.id, deposit.id), eq(baseDeposits.status, "pending")));
    await adjustGas(database, { network: chain.network, day, reservedWei, spentWei: 0n });
    throw error;
  };

  let hash: Hash;
  try {
    const { request } = await chain.publicClient.simulateContract({
      account: services.wallet.account ?? services.settler,
      address: usdc.address,
      abi: eip3009Abi,
      functionName: "transferWithAuthorization",
      args: [
        authorization.from,
        authorization.to,
        authorization.value,
        authorization.validAfter,
        authorization.validBefore,
        authorization.nonce,
        authorization.signature,
      ],
    });
    hash = await services.wallet.writeContract({
      ...request,
      account: services.wallet.account ?? null,
      chain: chain.chain,
    });
  } catch (error) {
    const reverted = revertReasonOf(error);
    if (reverted)
      return abandon(
        refused(reverted.reason, `the USDC contract refuses this transfer (${reverted.message})`),
      );
    log.warn("base deposit: submission failed", { error, deposit: deposit.id.toString() });
    return abandon(
      new GatewayError(
        "upstream_error",
        "the deposit could not be submitted to Base; nothing was credited, try again",
        {
          details: { reason: "submission_failed" },
        },
      ),
    );
  }

  await database
    .update(baseDeposits)
    .set({ transactionHash: hash, updatedAt: sql`now()` })
    .where(and(eq(baseDeposits.id, deposit.id), eq(baseDeposits.status, "pending")));
  const receipt = await chain.publicClient
    .waitForTransactionReceipt({ hash, timeout: services.receiptTimeoutMs })
    .catch(() => undefined);
  if (!receipt) return { type: "pending", deposit: { ...deposit, transactionHash: hash } };
  await adjustGas(database, {
    network: chain.network,
    day,
    reservedWei,
    spentWei: receipt.gasUsed * receipt.effectiveGasPrice,
  });
  return finishDeposit(database, services, usdc, token, { ...deposit, transactionHash: hash }, receipt);
}

async function checkAuthorization(
  services: BaseDepositServices,
  usdc: Eip712Token,
  token: TokenRecord,
  authorization: TransferAuthorization,
  salt: Hex,
): Promise<void> {
  if (getAddress(authorization.to) !== services.depositAddress) {
    throw refused(
      "recipient_mismatch",
      `the authorization pays ${authorization.to}, not this gateway's deposit address ${services.depositAddress}`,
    );
  }
  if (authorization.value < MIN_BASE_DEPOSIT_MICROUNITS) {
    throw refused(
      "below_minimum",
      `a deposit must be at least ${MIN_BASE_DEPOSIT_MICROUNITS} microunits (1 USDC), not ${authorization.value}`,
    );
  }
  const now = BigInt(Math.floor(Date.now() / 1000));
  if (authorization.validAfter > now) {
    throw refused("valid_after", "the authorization is not valid yet (validAfter is in the future)");
  }
  if (authorization.validBefore < now + MIN_VALIDITY_SECONDS) {
    throw refused("valid_before", "the authorization has expired (validBefore has passed or is too close)");
  }
  if (authorization.nonce.toLowerCase() !== depositNonce(token.depositCode, salt)) {
    throw refused(
      "nonce_not_committed",
      'the authorization\'s nonce is not keccak256("usepod-deposit:" + deposit_code + ":" + salt) for this token and salt',
    );
  }
  const signed = await signedByPayer(services.publicClient, services.chain.chainId, usdc, authorization);
  if (!signed) {
    throw refused(
      "invalid_signature",
      `the signature does not recover to ${authorization.from} for USDC ${usdc.address} on ${services.chain.network}`,
    );
  }
}

class ClaimTaken extends Error {}
class BudgetExhausted extends Error {}

async function claimDeposit(
  database: Database,
  services: BaseDepositServices,
  token: TokenRecord,
  claim: { authorization: TransferAuthorization; salt: Hex; key: string; day: string; reservedWei: bigint },
): Promise<{ type: "claimed"; deposit: BaseDeposit } | { type: "taken" }> {
  try {
    const deposit = await database.transaction(async (transaction) => {
      const [inserted] = await transaction
        .insert(baseDeposits)
        .values({
          network: services.chain.network,
          authorizationKey: claim.key,
          tokenId: token.id,
          accountId: token.accountId,
          payer: getAddress(claim.authorization.from),
          amountMicrounits: claim.authorization.value,
          nonce: claim.authorization.nonce.toLowerCase(),
          salt: claim.salt.toLowerCase(),
          status: "pending",
        })
        .onConflictDoNothing({ target: [baseDeposits.network, baseDeposits.authorizationKey] })
        .returning();
      if (!inserted) throw new ClaimTaken();
      const reserved = await reserveGas(transaction, {
        network: services.chain.network,
        day: claim.day,
        wei: claim.reservedWei,
        dailyBudgetWei: services.gasDailyBudgetWei,
      });
      if (!reserved) throw new BudgetExhausted();
      return inserted;
    });
    return { type: "claimed", deposit };
  } catch (error) {
    if (error instanceof ClaimTaken) return { type: "taken" };
    if (error instanceof BudgetExhausted) throw baseGasBudgetExhausted();
    throw error;
  }
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
  services: BaseDepositServices,
  usdc: Eip712Token,
  token: TokenRecord,
  key: string,
): Promise<BaseDepositOutcome> {
  const winner = await findDeposit(database, services.chain.network, key);
  const resumed = winner ? await resumeDeposit(database, services, usdc, token, winner) : undefined;
  if (!resumed || resumed.type === "released") {
    throw conflict(
      "in_progress",
      "this authorization is being submitted by another request; send it again shortly",
    );
  }
  return resumed;
}

async function authorizationUsed(
  services: BaseDepositServices,
  usdc: Eip712Token,
  authorization: Pick<TransferAuthorization, "from" | "nonce">,
): Promise<boolean> {
  return services.publicClient.readContract({
    address: usdc.address,
    abi: eip3009Abi,
    functionName: "authorizationState",
    args: [authorization.from, authorization.nonce],
  });
}

/** How far back the transaction that used an authorization is looked for (about 5.5 hours on Base). */
const LOOKBACK_BLOCKS = 10_000n;

/** The transaction whose AuthorizationUsed log names (from, nonce), among recent blocks. */
async function findAuthorizationTransaction(
  services: BaseDepositServices,
  usdc: Eip712Token,
  authorization: Pick<TransferAuthorization, "from" | "nonce">,
): Promise<Hash | undefined> {
  // Uncached: the transaction may be in the block mined a moment ago.
  const latest = await services.publicClient.getBlockNumber({ cacheTime: 0 });
  const logs = await services.publicClient.getContractEvents({
    address: usdc.address,
    abi: eip3009Abi,
    eventName: "AuthorizationUsed",
    args: { authorizer: authorization.from, nonce: authorization.nonce },
    fromBlock: latest > LOOKBACK_BLOCKS ? latest - LOOKBACK_BLOCKS : 0n,
    toBlock: "latest",
  });
  return logs[0]?.transactionHash ?? undefined;
}

/**
 * An authorization already used on-chain by a transaction someone else sent: claim it with
 * that transaction (the same unique row, so it is credited once) and let its receipt decide.
 */
async function adoptSubmitted(
  database: Database,
  services: BaseDepositServices,
  usdc: Eip712Token,
  token: TokenRecord,
  input: { authorization: TransferAuthorization; salt: Hex; key: string },
): Promise<BaseDepositOutcome> {
  const { authorization } = input;
  const hash = await findAuthorizationTransaction(services, usdc, authorization);
  if (!hash) {
    throw conflict(
      "nonce_already_used",
      "this authorization's nonce is already used on-chain and its transaction is not among recent blocks; nothing was credited",
    );
  }
  const [claimed] = await database
    .insert(baseDeposits)
    .values({
      network: services.chain.network,
      authorizationKey: input.key,
      tokenId: token.id,
      accountId: token.accountId,
      payer: getAddress(authorization.from),
      amountMicrounits: authorization.value,
      nonce: authorization.nonce.toLowerCase(),
      salt: input.salt.toLowerCase(),
      status: "pending",
      transactionHash: hash,
    })
    .onConflictDoNothing({ target: [baseDeposits.network, baseDeposits.authorizationKey] })
    .returning();
  if (!claimed) return resumeWinner(database, services, usdc, token, input.key);
  const receipt = await services.publicClient.getTransactionReceipt({ hash });
  return finishDeposit(database, services, usdc, token, claimed, receipt);
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
  services: BaseDepositServices,
  usdc: Eip712Token,
  token: TokenRecord,
  deposit: BaseDeposit,
): Promise<BaseDepositOutcome | { type: "released" }> {
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
    if (!(await authorizationUsed(services, usdc, authorization))) {
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
    const hash = await findAuthorizationTransaction(services, usdc, authorization);
    if (!hash) {
      throw conflict(
        "in_progress",
        "this authorization's transaction is not found yet; send it again later",
        deposit,
      );
    }
    await database
      .update(baseDeposits)
      .set({ transactionHash: hash, updatedAt: sql`now()` })
      .where(and(eq(baseDeposits.id, deposit.id), eq(baseDeposits.status, "pending")));
    deposit = { ...deposit, transactionHash: hash };
  }
  const receipt = await services.publicClient
    .getTransactionReceipt({ hash: deposit.transactionHash as Hash })
    .catch(() => undefined);
  if (!receipt) return { type: "pending", deposit };
  return finishDeposit(database, services, usdc, token, deposit, receipt);
}

/**
 * The receipt decides: a transfer of the authorized value to the deposit address, with this
 * authorization marked used, credits the token; anything else fails the deposit. The move to
 * `credited` and the ledger posting commit together, and only from `pending`, so concurrent
 * finishers credit once.
 */
async function finishDeposit(
  database: Database,
  services: BaseDepositServices,
  usdc: Eip712Token,
  token: TokenRecord,
  deposit: BaseDeposit,
  receipt: Parameters<typeof checkTransferReceipt>[0],
): Promise<BaseDepositOutcome> {
  const checked = checkTransferReceipt(receipt, {
    token: usdc.address,
    from: getAddress(deposit.payer),
    to: services.depositAddress,
    nonce: deposit.nonce as Hex,
    minValue: deposit.amountMicrounits,
  });
  if (checked.type === "rejected") {
    const [failed] = await database
      .update(baseDeposits)
      .set({ status: "failed", reason: checked.message, updatedAt: sql`now()` })
      .where(and(eq(baseDeposits.id, deposit.id), eq(baseDeposits.status, "pending")))
      .returning();
    throw refused(
      "transfer_failed",
      `transaction ${deposit.transactionHash} did not deposit: ${(failed ?? deposit).reason ?? checked.message}`,
    );
  }
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

const revertReasons: [RegExp, string][] = [
  [/exceeds balance/i, "insufficient_funds"],
  [/authorization is used or canceled/i, "nonce_already_used"],
  [/authorization is expired/i, "valid_before"],
  [/authorization is not yet valid/i, "valid_after"],
  [/invalid signature/i, "invalid_signature"],
  [/blacklisted/i, "blacklisted"],
  [/paused/i, "token_paused"],
];

/** A refusal by the token contract (seen in simulation), as a reason code; undefined for anything else. */
function revertReasonOf(error: unknown): { reason: string; message: string } | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) return undefined;
  const message = reverted.reason ?? reverted.shortMessage;
  const known = revertReasons.find(([pattern]) => pattern.test(message));
  return { reason: known?.[1] ?? "transaction_simulation_failed", message };
}
