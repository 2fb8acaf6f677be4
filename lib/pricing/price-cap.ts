import { perRequestPrice, type TokenPrice } from "./cost";

const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * A price a marketplace agent or relay listing asks: per 1M tokens in microunits, or a fixed
 * price per request (`requestPrice`, token rates then zero).
 */
export interface ListedPrice {
  inputPer1m: bigint;
  outputPer1m: bigint;
  requestPrice?: bigint | undefined;
}

const lowest = (values: bigint[]) =>
  values.reduce<bigint | undefined>((a, b) => (a === undefined ? b : min(a, b)), undefined);

/**
 * The cap for marketplace and relay listings: on each axis (input, output, cache read,
 * cache write) the lowest price any centralized provider publishes for the model per token,
 * and the lowest it publishes per request. Taking the minimum per axis means a listing can
 * never charge more than the cheapest centralized price on either axis, whichever provider
 * that price comes from. No published price, no cap: `undefined`, and such listings are not
 * routed (nothing proves they are not dearer). The two kinds are capped apart: a per-token
 * price never caps a per-request listing (no token count makes them comparable before the
 * request), so a per-request listing is routed only where some provider sells per request.
 */
export function centralizedCap(prices: readonly TokenPrice[]): TokenPrice | undefined {
  if (prices.length === 0) return undefined;
  const perToken = prices.filter((price) => price.requestPrice === undefined);
  // Only per-request prices published: token axes of zero refuse every priced per-token listing.
  const axis = (read: (price: TokenPrice) => bigint) => lowest(perToken.map(read)) ?? 0n;
  const requestPrice = lowest(
    prices.flatMap((price) => (price.requestPrice === undefined ? [] : [price.requestPrice])),
  );
  return {
    inputPer1m: axis((price) => price.inputPer1m),
    outputPer1m: axis((price) => price.outputPer1m),
    cacheReadPer1m: axis((price) => price.cacheReadPer1m),
    cacheWritePer1m: axis((price) => price.cacheWritePer1m),
    ...(requestPrice === undefined ? {} : { requestPrice }),
  };
}

export function isWithinCap(listed: ListedPrice, cap: TokenPrice | undefined): cap is TokenPrice {
  if (cap === undefined) return false;
  if (listed.requestPrice !== undefined)
    return cap.requestPrice !== undefined && listed.requestPrice <= cap.requestPrice;
  return listed.inputPer1m <= cap.inputPer1m && listed.outputPer1m <= cap.outputPer1m;
}

/**
 * The price a caller pays on a listing, or `undefined` when the listing is above the cap on
 * either axis: such a listing is never selected (it is not lowered to the cap, since the
 * operator never agreed to sell at that price). Listings carry no cache rates, so cached
 * tokens bill at the listing's input rate, lowered to the centralized cache rate when that
 * is cheaper. A per-request listing costs its request price whatever the tokens.
 */
export function cappedListingPrice(listed: ListedPrice, cap: TokenPrice | undefined): TokenPrice | undefined {
  if (!isWithinCap(listed, cap)) return undefined;
  if (listed.requestPrice !== undefined) {
    return perRequestPrice(listed.requestPrice);
  }
  return {
    inputPer1m: listed.inputPer1m,
    outputPer1m: listed.outputPer1m,
    cacheReadPer1m: min(listed.inputPer1m, cap.cacheReadPer1m),
    cacheWritePer1m: min(listed.inputPer1m, cap.cacheWritePer1m),
  };
}
