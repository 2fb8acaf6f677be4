import type { UsageReceipt } from "@pod-gateway/contracts/usage-receipt";
import type { Usage } from "../pricing/cost";

/** Who paid, as receipts and usage records name it: an x402 wallet, or the prepaid account. */
export function wirePayer(
  accountId: bigint,
  x402Payer: { wallet: string; network: string } | undefined,
): UsageReceipt["payer"] {
  return x402Payer ? { kind: "x402", ...x402Payer } : { kind: "account", account_id: accountId.toString() };
}

/** The counts billed and how they were counted, as receipts and usage records carry them. */
export function wireCounts(usage: Usage, countedBy: UsageReceipt["usage"]["counted_by"]) {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_tokens: usage.cacheReadTokens,
    cache_write_tokens: usage.cacheWriteTokens,
    counted_by: countedBy,
  };
}
