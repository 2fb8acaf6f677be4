import { type Address, type Hex, parseEventLogs, type TransactionReceipt } from "viem";
import { eip3009Abi } from "./eip3009";

/** What the receipt of a submitted authorization must show. */
export interface ExpectedTransfer {
  token: Address;
  from: Address;
  to: Address;
  nonce: Hex;
  minValue: bigint;
}

export type TransferReceiptCheck =
  | { type: "transferred"; value: bigint }
  | { type: "rejected"; message: string };

/**
 * What a settled authorization must show on-chain, read from its receipt rather than taken
 * from a facilitator's word: the transaction succeeded, the token contract logged this
 * authorization as used, and it moved at least `minValue` from the payer to pay_to.
 */
export function checkTransferReceipt(
  receipt: Pick<TransactionReceipt, "status" | "logs">,
  expected: ExpectedTransfer,
): TransferReceiptCheck {
  if (receipt.status !== "success") return { type: "rejected", message: "the transfer transaction reverted" };
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const logs = parseEventLogs({ abi: eip3009Abi, logs: receipt.logs }).filter((log) =>
    same(log.address, expected.token),
  );
  const used = logs.some(
    (log) =>
      log.eventName === "AuthorizationUsed" &&
      same(log.args.authorizer, expected.from) &&
      same(log.args.nonce, expected.nonce),
  );
  if (!used) return { type: "rejected", message: "the transaction did not use this authorization" };
  let value = 0n;
  for (const log of logs) {
    if (
      log.eventName === "Transfer" &&
      same(log.args.from, expected.from) &&
      same(log.args.to, expected.to)
    ) {
      value += log.args.value;
    }
  }
  if (value < expected.minValue) {
    return {
      type: "rejected",
      message: `the transaction moved ${value} to pay_to, below ${expected.minValue}`,
    };
  }
  return { type: "transferred", value };
}
