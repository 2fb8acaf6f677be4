/** "12.5" or "$0.000125" as integer microunits, exactly (no floating point); undefined if not an amount. */
export function usdToMicrounits(text: string): bigint | undefined {
  const match = /^\$?\s*(\d{1,9})(?:\.(\d{0,6}))?$/.exec(text.trim());
  if (!match) return undefined;
  const whole = BigInt(match[1] ?? "0");
  const fraction = BigInt((match[2] ?? "").padEnd(6, "0"));
  return whole * 1_000_000n + fraction;
}
