import type { TokenPrice } from "../pricing/cost";
import type { Candidate } from "../providers/candidate";

const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * The dearest rate on each axis, and the dearest price per request: a hold at this price
 * covers a failover to any candidate, per token or per request.
 */
export function highestPrice(candidates: Candidate[]): TokenPrice {
  return candidates.reduce<TokenPrice>(
    (acc, { price }) => ({
      inputPer1m: max(acc.inputPer1m, price.inputPer1m),
      outputPer1m: max(acc.outputPer1m, price.outputPer1m),
      cacheReadPer1m: max(acc.cacheReadPer1m, price.cacheReadPer1m),
      cacheWritePer1m: max(acc.cacheWritePer1m, price.cacheWritePer1m),
      ...(price.requestPrice === undefined && acc.requestPrice === undefined
        ? {}
        : { requestPrice: max(acc.requestPrice ?? 0n, price.requestPrice ?? 0n) }),
    }),
    { inputPer1m: 0n, outputPer1m: 0n, cacheReadPer1m: 0n, cacheWritePer1m: 0n },
  );
}
