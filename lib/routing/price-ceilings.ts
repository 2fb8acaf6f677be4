import { badRequest } from "../errors/gateway-error";
import type { ListedPrice } from "../pricing/price-cap";

/** The caller's spend controls, microunits per 1M tokens; an absent header sets no ceiling. */
export interface PriceCeilings {
  inputPer1m?: bigint;
  outputPer1m?: bigint;
}

const maxPriceInputHeader = "x-pod-max-price-input";
const maxPriceOutputHeader = "x-pod-max-price-output";

/** Digits only: no sign, decimals or exponent. 18 digits keep the value inside a bigint column. */
const integerPattern = /^\d{1,18}$/;

function parseCeiling(headers: Headers, name: string): bigint | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === "") return undefined;
  const value = raw.trim();
  if (!integerPattern.test(value)) {
    throw badRequest(
      `${canonicalName(name)} must be a non-negative integer (USDC microunits per 1M tokens), got ${JSON.stringify(raw.slice(0, 40))}`,
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

/** Reads `X-Pod-Max-Price-Input` and `X-Pod-Max-Price-Output`; a malformed value is a 400. */
export function parsePriceCeilings(headers: Headers): PriceCeilings {
  const inputPer1m = parseCeiling(headers, maxPriceInputHeader);
  const outputPer1m = parseCeiling(headers, maxPriceOutputHeader);
  return {
    ...(inputPer1m === undefined ? {} : { inputPer1m }),
    ...(outputPer1m === undefined ? {} : { outputPer1m }),
  };
}

/** A candidate is eligible only if both of its prices are at or below the ceilings. */
export function isWithinCeilings(price: ListedPrice, ceilings: PriceCeilings): boolean {
  return (
    (ceilings.inputPer1m === undefined || price.inputPer1m <= ceilings.inputPer1m) &&
    (ceilings.outputPer1m === undefined || price.outputPer1m <= ceilings.outputPer1m)
  );
}
