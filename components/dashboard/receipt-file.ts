/**
 * A request's signed usage receipt as a file a dashboard row offers: `<request id>.jws`, the
 * compact JWS itself, which `npx pod-gateway verify-receipt <file>` checks offline. A data URL,
 * so saving it asks the gateway for nothing (the row already holds the receipt).
 */
export function receiptFile(jws: string, requestId: string): { href: string; download: string } {
  return {
    href: `data:application/jose;charset=us-ascii,${encodeURIComponent(jws)}`,
    download: `${requestId}.jws`,
  };
}
