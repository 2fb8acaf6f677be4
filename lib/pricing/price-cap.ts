import type { TokenPrice } from "./cost";

const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** A price a marketplace agent or relay listing asks, per 1M tokens in microunits. */
export interface ListedPrice {
  inputPer1m: bigint;
  outputPer1m: bigint;
}

/**
 * The cap for marketplace and relay listings: on each axis (input, output, cache read,
 * cache write) the lowest price any centralized provider publishes for the model. Taking
 * the minimum per axis means a listing can never charge more than the cheapest centralized
 * price on either axis, whichever provider that price comes from. No published price, no cap:
 * `undefined`, and such listings are not routed (nothing proves they are not dearer).
 */
export function centralizedCap(prices: readonly TokenPrice[]): TokenPrice | undefined {
  const [first, ...rest] = prices;
  if (!first) return undefined;
  return rest.reduce<TokenPrice>(
    (cap, price) => ({
      inputPer1m: min(cap.inputPer1m, price.inputPer1m),
      outputPer1m: min(cap.outputPer1m, price.outputPer1m),
      cacheReadPer1m: min(cap.cacheReadPer1m, price.cacheReadPer1m),
      cacheWritePer1m: min(cap.cacheWritePer1m, price.cacheWritePer1m),
    }),
    { ...first },
  );
}

export function isWithinCap(listed: ListedPrice, cap: TokenPrice | undefined): cap is TokenPrice {
  return cap !== undefined && listed.inputPer1m <= cap.inputPer1m && listed.outputPer1m <= cap.outputPer1m;
}

/**
 * The price a caller pays on a listing, or `undefined` when the listing is above the cap on
 * either axis: such a listing is never selected (it is not lowered to the cap, since the
 * operator never agreed to sell at that price). Listings carry no cache rates, so cached
 * tokens bill at the listing's input rate, lowered to the centralized cache rate when that
 * is cheaper.
 */
export function cappedListingPrice(listed: ListedPrice, cap: TokenPrice | undefined): TokenPrice | undefined {
  if (!isWithinCap(listed, cap)) return undefined;
  return {
    inputPer1m: listed.inputPer1m,
    outputPer1m: listed.outputPer1m,
    cacheReadPer1m: min(listed.inputPer1m, cap.cacheReadPer1m),
    cacheWritePer1m: min(listed.inputPer1m, cap.cacheWritePer1m),
  };
}
