import { and, eq, sql } from "drizzle-orm";
import { getAddress, type Hash, type Hex } from "viem";
import type { TransferClaims } from "../../chains/evm/authorized-transfer";
import type { Eip712Token } from "../../chains/evm/constants";
import type { TransferAuthorization } from "../../chains/evm/eip3009";
import type { ExpectedTransfer } from "../../chains/evm/transfer-receipt";
import type { Database } from "../../db/client";
import { baseDeposits } from "../../db/schema";
import { postTokenCredit } from "../../tokens/credit-token";
import type { TokenRecord } from "../../tokens/find-token";
import type { BaseDepositServices } from "./base-deposit-config";
import { conflict } from "./base-deposit-errors";

/** A Base deposit's claim row, from the authorization's first submission to its credit. */
export type BaseDeposit = typeof baseDeposits.$inferSelect;

export type BaseDepositOutcome =
  | { type: "credited"; deposit: BaseDeposit }
  /** Submitted, not mined within the wait: send the same authorization again later to finish. */
  | { type: "pending"; deposit: BaseDeposit };

/** The outside-world account USDC deposits on Base come from. */
const baseDepositSource = { kind: "external", ref: "base-usdc-deposits" } as const;

/** One deposit's setting: the Base services, the USDC domain it is signed for, the token it funds. */
export interface Depositing {
  services: BaseDepositServices;
  usdc: Eip712Token;
  token: TokenRecord;
}

export function expectedTransfer(
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
export function claimRow(
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

/** The claim the one EVM transfer writes for a deposit: its row, unique per authorization, and its moves. */
export function depositClaims(
  database: Database,
  depositing: Depositing,
  input: { authorization: TransferAuthorization; salt: Hex; key: string },
): TransferClaims<BaseDeposit, "claim_taken"> {
  return {
    ...depositRows(database),
    async write(transaction, rollback) {
      const [inserted] = await transaction
        .insert(baseDeposits)
        .values(claimRow(depositing, input))
        .onConflictDoNothing({ target: [baseDeposits.network, baseDeposits.authorizationKey] })
        .returning();
      return inserted ?? rollback("claim_taken");
    },
  };
}

/** A deposit claim's moves, each only from `pending`, so concurrent finishers agree. */
export function depositRows(database: Database): Omit<TransferClaims<BaseDeposit, never>, "write"> {
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

export async function findDeposit(
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

/**
 * A transfer of the authorized value to the deposit address credits the token. The move to
 * `credited` and the ledger posting commit together, and only from `pending`, so concurrent
 * finishers credit once.
 */
export async function creditDeposit(
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
