import { badRequest } from "../errors/gateway-error";
import type { ListedPrice } from "../pricing/price-cap";

/**
 * The caller's spend controls: microunits per 1M tokens, and microunits per request for
 * sources sold per request; an absent header sets no ceiling.
 */
export interface PriceCeilings {
  inputPer1m?: bigint;
  outputPer1m?: bigint;
  requestPrice?: bigint;
}

const maxPriceInputHeader = "x-pod-max-price-input";
const maxPriceOutputHeader = "x-pod-max-price-output";
const maxPriceRequestHeader = "x-pod-max-price-request";

/** Digits only: no sign, decimals or exponent. 18 digits keep the value inside a bigint column. */
const integerPattern = /^\d{1,18}$/;

function parseCeiling(headers: Headers, name: string): bigint | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === "") return undefined;
  const value = raw.trim();
  if (!integerPattern.test(value)) {
    throw badRequest(
      `${canonicalName(name)} must be a non-negative integer (USDC microunits ${name === maxPriceRequestHeader ? "per request" : "per 1M tokens"}), got ${JSON.stringify(raw.slice(0, 40))}`,
      { param: canonicalName(name) },
    );
  }
  return BigInt(value);
}

function canonicalName(name: string): string {
  return name.replace(
    /(^|-)([a-z])/g,
    (_match, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`,
  );
}

/** Reads `X-Pod-Max-Price-Input`, `-Output` and `-Request`; a malformed value is a 400. */
export function parsePriceCeilings(headers: Headers): PriceCeilings {
  const inputPer1m = parseCeiling(headers, maxPriceInputHeader);
  const outputPer1m = parseCeiling(headers, maxPriceOutputHeader);
  const requestPrice = parseCeiling(headers, maxPriceRequestHeader);
  return {
    ...(inputPer1m === undefined ? {} : { inputPer1m }),
    ...(outputPer1m === undefined ? {} : { outputPer1m }),
    ...(requestPrice === undefined ? {} : { requestPrice }),
  };
}

/**
 * A per-token candidate is eligible only if both of its prices are at or below the token
 * ceilings. A per-request candidate is eligible under a request ceiling at or above its price;
 * under token ceilings alone it is not (nothing proves its fixed price within them).
 */
export function isWithinCeilings(price: ListedPrice, ceilings: PriceCeilings): boolean {
  if (price.requestPrice !== undefined) {
    if (ceilings.requestPrice !== undefined) return price.requestPrice <= ceilings.requestPrice;
    return ceilings.inputPer1m === undefined && ceilings.outputPer1m === undefined;
  }
  return (
    (ceilings.inputPer1m === undefined || price.inputPer1m <= ceilings.inputPer1m) &&
    (ceilings.outputPer1m === undefined || price.outputPer1m <= ceilings.outputPer1m)
  );
}
