import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from "./constants";
import type { PaymentCompiledMessage } from "./decode-transaction";

/**
 * Reads the ComputeBudget instructions of a compiled message. The sponsor of a
 * transaction pays `unitLimit × unitPrice`, so these two numbers are what bound the
 * fee a client can make our fee payer spend.
 */

/** Per-instruction default when no SetComputeUnitLimit is present, and the hard cap. */
const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;

const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;

type ComputeBudgetProblem = "duplicate_instruction" | "malformed_instruction" | "unsupported_instruction";

export interface ComputeBudgetSettings {
  /** From SetComputeUnitLimit; undefined when the instruction is absent. */
  unitLimit: number | undefined;
  /** From SetComputeUnitPrice, in micro-lamports per compute unit. */
  unitPriceMicroLamports: bigint | undefined;
  /** Effective limit the runtime applies (explicit, or the per-instruction default). */
  effectiveUnitLimit: number;
  problems: ComputeBudgetProblem[];
}

export function readComputeBudget(message: PaymentCompiledMessage): ComputeBudgetSettings {
  let unitLimit: number | undefined;
  let unitPriceMicroLamports: bigint | undefined;
  let otherInstructions = 0;
  const problems: ComputeBudgetProblem[] = [];
  for (const instruction of message.instructions) {
    if (message.staticAccounts[instruction.programAddressIndex] !== COMPUTE_BUDGET_PROGRAM_ADDRESS) {
      otherInstructions += 1;
      continue;
    }
    const data = instruction.data ?? new Uint8Array();
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    if (data[0] === SET_COMPUTE_UNIT_LIMIT && data.length === 5) {
      if (unitLimit !== undefined) problems.push("duplicate_instruction");
      unitLimit = view.getUint32(1, true);
    } else if (data[0] === SET_COMPUTE_UNIT_PRICE && data.length === 9) {
      if (unitPriceMicroLamports !== undefined) problems.push("duplicate_instruction");
      unitPriceMicroLamports = view.getBigUint64(1, true);
    } else if (data[0] === SET_COMPUTE_UNIT_LIMIT || data[0] === SET_COMPUTE_UNIT_PRICE) {
      problems.push("malformed_instruction");
    } else {
      // RequestHeapFrame and SetLoadedAccountsDataSizeLimit: valid on-chain, but no
      // payment needs them, so callers treat them as out of policy.
      problems.push("unsupported_instruction");
    }
  }
  const effectiveUnitLimit = Math.min(
    unitLimit ?? DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT * otherInstructions,
    MAX_COMPUTE_UNIT_LIMIT,
  );
  return { unitLimit, unitPriceMicroLamports, effectiveUnitLimit, problems };
}
