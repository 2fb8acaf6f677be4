import { badRequest } from "../errors/gateway-error";

const decimalPattern = /^(\d{1,9})(?:\.(\d{1,6}))?$/;

/**
 * A USDC amount as operators type it (`25`, `"12.5"`) → microunits, by string arithmetic so
 * no float ever touches money. At most 6 decimals and 1e9 USDC.
 */
export function parseUsdcAmount(value: number | string, field: string): bigint {
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : value.trim();
  const match = decimalPattern.exec(text);
  if (!match) throw badRequest(`${field} must be a USDC amount with at most 6 decimals`, { param: field });
  const [, whole = "0", fraction = ""] = match;
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
}

/** Microunits → a USDC decimal string without trailing zeros (`12500000n` → `"12.5"`). */
export function formatUsdc(microunits: bigint): string {
  const whole = microunits / 1_000_000n;
  const fraction = (microunits % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
}
