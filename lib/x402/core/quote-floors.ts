/** The floors every rail's amounts respect, in USDC microunits. */

/** A cap is never zero: a free quote would make any landed transfer a valid payment. */
export const MINIMUM_CAP_MICROUNITS = 1n;

/**
 * An entry whose network fee the gateway pays (a co-signed Solana transfer, a Base
 * authorization our settler submits) asks at least one cent; anything above the request's
 * actual cost is surplus credit.
 */
export const SPONSORED_MINIMUM_MICROUNITS = 10_000n;
