import { receiptFile } from "./receipt-file";

/** The row's receipt, saved as `<request id>.jws` (see receipt-file.ts). */
export function ReceiptLink({ jws, requestId }: { jws: string; requestId: string }) {
  const file = receiptFile(jws, requestId);
  return (
    <a
      href={file.href}
      download={file.download}
      title="Signed usage receipt: npx pod-gateway verify-receipt <file>"
    >
      Receipt
    </a>
  );
}
