import type { ReceiptIssuer } from "./receipt-issuer";

/** What signing receipts reads: undefined when receipts are off. */
export interface ReceiptServices {
  receipts: ReceiptIssuer | undefined;
}
