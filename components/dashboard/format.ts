/**
 * Money on the dashboard: microunits (1 USDC = 1,000,000) shown as dollars, exactly. Cents
 * always show; digits below a cent show when they are not zero, so a balance is never shown
 * as less than it is ($20.00 less $0.0008 reads $19.9992, not $19.99). (`precise` is what
 * every amount now is; the option stays for callers written before.)
 */
export function formatUsd(microunits: bigint | number, _options: { precise?: boolean } = {}): string {
  const value = typeof microunits === "bigint" ? microunits : BigInt(Math.trunc(microunits));
  const negative = value < 0n;
  const absolute = negative ? -value : value;
  const whole = absolute / 1_000_000n;
  const fraction = (absolute % 1_000_000n).toString().padStart(6, "0");
  const digits = fraction.slice(0, 2) + fraction.slice(2).replace(/0+$/, "");
  const grouped = whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${negative ? "−" : ""}$${grouped}.${digits}`;
}

/** A time as every dashboard page shows it: UTC, ISO order, 24-hour ("2026-11-29 14:05:09"). */
export function formatUtc(at: string | number | Date): string {
  return new Date(at).toISOString().replace("T", " ").slice(0, 19);
}

/** A span of seconds in the largest whole unit that says it ("10 min", "90 s", "2 h"). */
export function formatDuration(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
