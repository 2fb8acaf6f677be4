/**
 * Public surface of the Solana chain layer. Code outside lib/chains/solana imports
 * from here, not from individual files, so internals can move without churn.
 */

export { deriveAssociatedTokenAddress } from "./associated-token-address";
export {
  BALANCE_PROOF_MESSAGES,
  BALANCE_PROOF_PREFIX,
  type BalanceProofRejection,
  type BalanceProofResult,
  balanceProofMessage,
  verifyBalanceProof,
} from "./balance-proof";
export {
  isSolanaNetwork,
  LAMPORTS_PER_SOL,
  SOLANA_DEVNET_CAIP2,
  SOLANA_MAINNET_CAIP2,
  SOLANA_NETWORKS,
  SOLANA_TESTNET_CAIP2,
  type SolanaNetwork,
  USDC_DECIMALS,
  USDC_DEVNET_MINT,
  USDC_MAINNET_MINT,
  usdcMintForNetwork,
  WSOL_DECIMALS,
  WSOL_MINT,
} from "./constants";
export { parseFeePayerSecret } from "./fee-payer-key";
export {
  createDefaultSolPriceSource,
  createFixedSolPriceSource,
  createHttpSolPriceSource,
  DEFAULT_SOL_PRICE_URL,
  parseUsdPrice,
  type SolPrice,
  SolPriceError,
  type SolPriceErrorReason,
  type SolPriceSource,
  usdToLamports,
  withPriceBounds,
  withPriceCache,
} from "./sol-price";
export {
  PRECHECK_REJECTIONS,
  type PreCheckRejection,
  type PreCheckResult,
  preCheckStandardTransaction,
  type StandardTransactionExpectations,
} from "./standard-transaction-precheck";
export {
  COSIGNER_REJECTIONS,
  type CosignerRejection,
  type CosignResult,
  createSvmCosigner,
  type SvmCosigner,
  type SvmCosignerLimits,
  type SvmCosignerOptions,
} from "./svm-cosigner";
export {
  type BroadcastResult,
  broadcastAndConfirm,
  type ConfirmationResult,
  getSignatureStatus,
  type SignatureStatusResult,
  waitForConfirmation,
} from "./transaction-broadcast";
export { computeTransactionFee, LAMPORTS_PER_SIGNATURE } from "./transaction-fee";
export {
  NATIVE_PAYMENT_NOT_FOUND_MESSAGE,
  NATIVE_PAYMENT_REJECTIONS,
  type NativePaymentRejection,
  type VerifyNativePaymentInput,
  type VerifyNativePaymentResult,
  verifyNativePayment,
} from "./verify-native-payment";
