import {
  type CompiledTransactionMessageWithLifetime,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  type LegacyCompiledTransactionMessage,
  type Signature,
  type Transaction,
  type V0CompiledTransactionMessage,
} from "@solana/kit";

/** Legacy or v0 message: the only versions our payment paths accept. */
export type PaymentCompiledMessage = (LegacyCompiledTransactionMessage | V0CompiledTransactionMessage) &
  CompiledTransactionMessageWithLifetime;

export interface DecodedWireTransaction {
  transaction: Transaction;
  message: PaymentCompiledMessage;
}

export class TransactionDecodeError extends Error {
  override readonly name = "TransactionDecodeError";
}

const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes wire bytes into the signed transaction and its compiled message. Throws
 * `TransactionDecodeError` for garbage and for message versions other than legacy/v0
 * (v1 has a different instruction layout that no payment path here understands).
 */
export function decodeWireTransaction(bytes: Uint8Array): DecodedWireTransaction {
  let transaction: Transaction;
  let message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;
  try {
    transaction = getTransactionDecoder().decode(bytes);
    message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  } catch (error) {
    throw new TransactionDecodeError("transaction bytes could not be decoded", { cause: error });
  }
  if (message.version !== "legacy" && message.version !== 0) {
    throw new TransactionDecodeError(`transaction version ${message.version} is not supported`);
  }
  return { transaction, message };
}

/** Standard base64 only, matching the x402 decoders (base64url is rejected). */
export function decodeBase64Transaction(base64: string): DecodedWireTransaction {
  if (!BASE64_PATTERN.test(base64) || base64.length === 0) {
    throw new TransactionDecodeError("transaction is not standard base64");
  }
  return decodeWireTransaction(new Uint8Array(getBase64Encoder().encode(base64)));
}

/** The transaction id: the first signature, which belongs to the fee payer (account 0). */
export function transactionSignature(transaction: Transaction): Signature {
  return getSignatureFromTransaction(transaction);
}
