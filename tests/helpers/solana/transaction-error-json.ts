import type { FailedTransactionMetadata } from "litesvm";

/**
 * Converts LiteSVM's native error objects into the JSON shape a real Solana RPC node
 * returns in `meta.err` / `value.err` (serde's externally tagged enum), e.g.
 * `"InsufficientFundsForFee"` or `{"InstructionError":[0,{"Custom":1}]}`.
 */

export type TransactionErrorJson = string | Record<string, unknown>;

/** Names in the order of agave's `TransactionError` fieldless variants (LiteSVM's enum values). */
const TRANSACTION_ERRORS = [
  "AccountInUse",
  "AccountLoadedTwice",
  "AccountNotFound",
  "ProgramAccountNotFound",
  "InsufficientFundsForFee",
  "InvalidAccountForFee",
  "AlreadyProcessed",
  "BlockhashNotFound",
  "CallChainTooDeep",
  "MissingSignatureForFee",
  "InvalidAccountIndex",
  "SignatureFailure",
  "InvalidProgramForExecution",
  "SanitizeFailure",
  "ClusterMaintenance",
  "AccountBorrowOutstanding",
  "WouldExceedMaxBlockCostLimit",
  "UnsupportedVersion",
  "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit",
  "WouldExceedAccountDataBlockLimit",
  "TooManyAccountLocks",
  "AddressLookupTableNotFound",
  "InvalidAddressLookupTableOwner",
  "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex",
  "InvalidRentPayingAccount",
  "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit",
  "MaxLoadedAccountsDataSizeExceeded",
  "ResanitizationNeeded",
  "InvalidLoadedAccountsDataSizeLimit",
  "UnbalancedTransaction",
  "ProgramCacheHitMaxLimit",
  "CommitCancelled",
] as const;

/** Names in the order of agave's `InstructionError` fieldless variants. */
const INSTRUCTION_ERRORS = [
  "GenericError",
  "InvalidArgument",
  "InvalidInstructionData",
  "InvalidAccountData",
  "AccountDataTooSmall",
  "InsufficientFunds",
  "IncorrectProgramId",
  "MissingRequiredSignature",
  "AccountAlreadyInitialized",
  "UninitializedAccount",
  "UnbalancedInstruction",
  "ModifiedProgramId",
  "ExternalAccountLamportSpend",
  "ExternalAccountDataModified",
  "ReadonlyLamportChange",
  "ReadonlyDataModified",
  "DuplicateAccountIndex",
  "ExecutableModified",
  "RentEpochModified",
  "NotEnoughAccountKeys",
  "AccountDataSizeChanged",
  "AccountNotExecutable",
  "AccountBorrowFailed",
  "AccountBorrowOutstanding",
  "DuplicateAccountOutOfSync",
  "InvalidError",
  "ExecutableDataModified",
  "ExecutableLamportChange",
  "ExecutableAccountNotRentExempt",
  "UnsupportedProgramId",
  "CallDepth",
  "MissingAccount",
  "ReentrancyNotAllowed",
  "MaxSeedLengthExceeded",
  "InvalidSeeds",
  "InvalidRealloc",
  "ComputationalBudgetExceeded",
  "PrivilegeEscalation",
  "ProgramEnvironmentSetupFailure",
  "ProgramFailedToComplete",
  "ProgramFailedToCompile",
  "Immutable",
  "IncorrectAuthority",
  "AccountNotRentExempt",
  "InvalidAccountOwner",
  "ArithmeticOverflow",
  "UnsupportedSysvar",
  "IllegalOwner",
  "MaxAccountsDataAllocationsExceeded",
  "MaxAccountsExceeded",
  "MaxInstructionTraceLengthExceeded",
  "BuiltinProgramsMustConsumeComputeUnits",
  "BorshIoError",
] as const;

type LiteSvmError = ReturnType<FailedTransactionMetadata["err"]>;

export function transactionErrorToJson(error: LiteSvmError): TransactionErrorJson {
  if (typeof error === "number") return TRANSACTION_ERRORS[error] ?? `UnknownTransactionError(${error})`;
  if ("err" in error && typeof error.err === "function") {
    return { InstructionError: [error.index, instructionErrorToJson(error.err())] };
  }
  if ("index" in error) return { DuplicateInstruction: error.index };
  if ("accountIndex" in error) {
    // These two variants are NAPI classes with the same shape; only the class name differs.
    const restricted = error.constructor.name.includes("Restricted");
    const variant = restricted ? "ProgramExecutionTemporarilyRestricted" : "InsufficientFundsForRent";
    return { [variant]: { account_index: error.accountIndex } };
  }
  return String(error);
}

function instructionErrorToJson(error: unknown): TransactionErrorJson {
  if (typeof error === "number") return INSTRUCTION_ERRORS[error] ?? `UnknownInstructionError(${error})`;
  if (typeof error === "object" && error !== null) {
    if ("code" in error && typeof error.code === "number") return { Custom: error.code };
    if ("msg" in error && typeof error.msg === "string") return { BorshIoError: error.msg };
  }
  return String(error);
}

/** The human text a validator prints for the common preflight failures. */
export function describeTransactionError(error: TransactionErrorJson): string {
  if (error === "BlockhashNotFound") return "Blockhash not found";
  if (error === "AlreadyProcessed") return "This transaction has already been processed";
  if (error === "AccountNotFound") {
    return "Attempt to debit an account but found no record of a prior credit.";
  }
  if (error === "InsufficientFundsForFee") return "Insufficient funds for fee";
  if (typeof error === "string") return error;
  return JSON.stringify(error);
}
