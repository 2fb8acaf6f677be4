/** Money on the dashboard: microunits (1 USDC = 1,000,000) shown as dollars. */
export function formatUsd(microunits: bigint | number, options: { precise?: boolean } = {}): string {
  const value = typeof microunits === "bigint" ? microunits : BigInt(Math.trunc(microunits));
  const negative = value < 0n;
  const absolute = negative ? -value : value;
  const whole = absolute / 1_000_000n;
  const fraction = (absolute % 1_000_000n).toString().padStart(6, "0");
  // Small spends would read as $0.00 with cents only; show up to six places below a cent.
  const digits =
    options.precise || (whole === 0n && absolute > 0n && absolute < 10_000n)
      ? trimTo(fraction, 2)
      : fraction.slice(0, 2);
  const grouped = whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${negative ? "−" : ""}$${grouped}.${digits}`;
}

function trimTo(fraction: string, minimum: number): string {
  const trimmed = fraction.replace(/0+$/, "");
  return trimmed.length >= minimum ? trimmed : fraction.slice(0, minimum);
}
