import type { Address } from "@solana/kit";
import { deriveAssociatedTokenAddress } from "./associated-token-address";
import { readComputeBudget } from "./compute-budget";
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  LIGHTHOUSE_PROGRAM_ADDRESS,
  MEMO_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
} from "./constants";
import {
  decodeBase64Transaction,
  type PaymentCompiledMessage,
  TransactionDecodeError,
} from "./decode-transaction";

/**
 * Our own checks on a client-built x402 `exact` SVM transaction, run before the fee
 * payer signs anything. They are stricter than @x402/svm's static path on purpose:
 * the fee-payer key may appear in no instruction at all (2.27 accepts a memo listing
 * it), lookup tables are refused, and compute limit and price are both capped.
 *
 * @see x402-protocol.md §3.2 and §7.4
 */

const PRECHECK_REJECTIONS = {
  undecodable: "transaction_undecodable",
  lookupTables: "address_lookup_tables_forbidden",
  feePayerMismatch: "fee_payer_mismatch",
  feePayerInInstruction: "fee_payer_in_instruction",
  tooManySignatures: "too_many_signatures",
  unknownProgram: "unknown_program",
  computeBudgetInvalid: "compute_budget_invalid",
  computeLimitMissing: "compute_unit_limit_missing",
  computeLimitTooHigh: "compute_unit_limit_too_high",
  computePriceTooHigh: "compute_unit_price_too_high",
  tokenInstructionForbidden: "token_instruction_forbidden",
  transferMissing: "transfer_missing",
  multipleTransfers: "multiple_transfers",
  tokenProgramMismatch: "token_program_mismatch",
  mintMismatch: "mint_mismatch",
  recipientMismatch: "recipient_mismatch",
  amountMismatch: "amount_mismatch",
  memoMismatch: "memo_mismatch",
} as const;

export type PreCheckRejection = (typeof PRECHECK_REJECTIONS)[keyof typeof PRECHECK_REJECTIONS];

export interface StandardTransactionExpectations {
  /** Our fee-payer key: must be account 0 and nowhere else. */
  feePayer: Address;
  /** Owner wallet; the destination must be its ATA for `mint`. */
  payTo: Address;
  mint: Address;
  /** Exact atomic amount, when known (the x402 `exact` scheme). */
  amount?: bigint;
  /** Token program of `mint` (default: classic SPL Token, which USDC and wSOL use). */
  tokenProgram?: Address;
  /** When set, exactly one Memo instruction carrying this UTF-8 text. */
  memo?: string;
  maxComputeUnits?: number;
  maxPriorityFeeMicroLamports?: bigint;
  /** Required signatures (each costs our fee payer 5,000 lamports). */
  maxSignatures?: number;
}

export const DEFAULT_PRECHECK_LIMITS = {
  maxComputeUnits: 200_000,
  maxPriorityFeeMicroLamports: 50_000n,
  maxSignatures: 2,
} as const;

export type PreCheckResult =
  | { type: "ok"; payer: Address; source: Address; destination: Address; amount: bigint }
  | { type: "rejected"; reason: PreCheckRejection; message: string };

const ALLOWED_PROGRAMS: ReadonlySet<Address> = new Set([
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
  MEMO_PROGRAM_ADDRESS,
  LIGHTHOUSE_PROGRAM_ADDRESS,
]);

const TRANSFER_CHECKED = 12;
const TRANSFER_CHECKED_DATA_LENGTH = 10;

/** Pure (no RPC): decodes `transactionBase64` and applies the policy above. */
export async function preCheckStandardTransaction(
  transactionBase64: string,
  expectations: StandardTransactionExpectations,
): Promise<PreCheckResult> {
  let message: PaymentCompiledMessage;
  try {
    message = decodeBase64Transaction(transactionBase64).message;
  } catch (error) {
    const detail = error instanceof TransactionDecodeError ? error.message : "invalid transaction";
    return reject("transaction_undecodable", detail);
  }
  if (message.version === 0 && (message.addressTableLookups?.length ?? 0) > 0) {
    return reject("address_lookup_tables_forbidden", "address lookup tables are not accepted");
  }
  const accounts = message.staticAccounts;
  if (accounts[0] !== expectations.feePayer) {
    return reject("fee_payer_mismatch", "account 0 (fee payer) is not the facilitator fee payer");
  }
  const maxSignatures = expectations.maxSignatures ?? DEFAULT_PRECHECK_LIMITS.maxSignatures;
  if (message.header.numSignerAccounts > maxSignatures) {
    return reject("too_many_signatures", `more than ${maxSignatures} required signatures`);
  }
  for (const instruction of message.instructions) {
    // Index 0 is the fee payer; any use of it beyond paying fees could move its funds.
    if (instruction.programAddressIndex === 0 || (instruction.accountIndices ?? []).includes(0)) {
      return reject("fee_payer_in_instruction", "the fee payer appears in an instruction's accounts");
    }
    const program = accounts[instruction.programAddressIndex];
    if (program === undefined || !ALLOWED_PROGRAMS.has(program)) {
      return reject("unknown_program", `program ${program ?? "?"} is not allowed in a sponsored payment`);
    }
  }

  const budgetRejection = checkComputeBudget(message, expectations);
  if (budgetRejection) return budgetRejection;

  const tokenInstructions = message.instructions.filter((instruction) => {
    const program = accounts[instruction.programAddressIndex];
    return program === TOKEN_PROGRAM_ADDRESS || program === TOKEN_2022_PROGRAM_ADDRESS;
  });
  const transfers = tokenInstructions.filter((instruction) => instruction.data?.[0] === TRANSFER_CHECKED);
  if (transfers.length !== tokenInstructions.length) {
    return reject("token_instruction_forbidden", "only TransferChecked may call the token program");
  }
  const [transfer, ...extraTransfers] = transfers;
  if (!transfer) return reject("transfer_missing", "no TransferChecked instruction");
  if (extraTransfers.length > 0)
    return reject("multiple_transfers", "more than one TransferChecked instruction");

  const data = transfer.data ?? new Uint8Array();
  const [source, mint, destination, authority] = (transfer.accountIndices ?? []).map(
    (index) => accounts[index],
  );
  if (data.length !== TRANSFER_CHECKED_DATA_LENGTH || !source || !mint || !destination || !authority) {
    return reject("token_instruction_forbidden", "malformed TransferChecked instruction");
  }
  const tokenProgram = expectations.tokenProgram ?? TOKEN_PROGRAM_ADDRESS;
  if (accounts[transfer.programAddressIndex] !== tokenProgram) {
    return reject("token_program_mismatch", "transfer does not use the mint's token program");
  }
  if (mint !== expectations.mint) return reject("mint_mismatch", "transfer is for a different mint");
  const expectedDestination = await deriveAssociatedTokenAddress(
    expectations.payTo,
    expectations.mint,
    tokenProgram,
  );
  if (destination !== expectedDestination) {
    return reject("recipient_mismatch", "transfer destination is not the ATA of pay_to");
  }
  const amount = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(1, true);
  if (expectations.amount !== undefined && amount !== expectations.amount) {
    return reject(
      "amount_mismatch",
      `transfer amount ${amount} differs from the required ${expectations.amount}`,
    );
  }

  if (expectations.memo !== undefined) {
    const memos = message.instructions.filter(
      (instruction) => accounts[instruction.programAddressIndex] === MEMO_PROGRAM_ADDRESS,
    );
    const text =
      memos.length === 1 ? new TextDecoder().decode(memos[0]?.data ?? new Uint8Array()) : undefined;
    if (text !== expectations.memo)
      return reject("memo_mismatch", "expected exactly one memo with the quoted text");
  }
  return { type: "ok", payer: authority, source, destination, amount };
}

function checkComputeBudget(
  message: PaymentCompiledMessage,
  expectations: StandardTransactionExpectations,
): PreCheckResult | undefined {
  const budget = readComputeBudget(message);
  if (budget.problems.length > 0) {
    return reject("compute_budget_invalid", `compute budget instructions: ${budget.problems.join(", ")}`);
  }
  if (budget.unitLimit === undefined) {
    // Without an explicit limit the runtime allows 200k CU per instruction, unbounded by policy.
    return reject("compute_unit_limit_missing", "SetComputeUnitLimit is required");
  }
  const maxUnits = expectations.maxComputeUnits ?? DEFAULT_PRECHECK_LIMITS.maxComputeUnits;
  if (budget.unitLimit > maxUnits) {
    return reject(
      "compute_unit_limit_too_high",
      `compute unit limit ${budget.unitLimit} exceeds ${maxUnits}`,
    );
  }
  const maxPrice =
    expectations.maxPriorityFeeMicroLamports ?? DEFAULT_PRECHECK_LIMITS.maxPriorityFeeMicroLamports;
  if ((budget.unitPriceMicroLamports ?? 0n) > maxPrice) {
    return reject("compute_unit_price_too_high", `compute unit price exceeds ${maxPrice} micro-lamports`);
  }
  return undefined;
}

function reject(reason: PreCheckRejection, message: string): PreCheckResult {
  return { type: "rejected", reason, message };
}
