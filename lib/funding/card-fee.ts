/**
 * Stripe's card fee and who pays it. `pass_on` (the reference service's choice: "a small
 * processing surcharge") adds it on top so the gateway nets exactly the credit; `absorb`
 * charges the credit and the gateway pays Stripe out of it.
 */
export interface CardFeeRule {
  mode: "pass_on" | "absorb";
  /** Stripe's percentage, in basis points (290 = 2.9%). */
  percentBps: number;
  /** Stripe's fixed part per charge, in cents. */
  fixedCents: number;
}

export interface CardQuote {
  creditCents: number;
  feeCents: number;
  totalCents: number;
}

/**
 * The charge for a credit. Passed on, the total is the smallest amount whose Stripe fee
 * leaves at least the credit: total - ceil(total·bps/10000) - fixed >= credit.
 */
export function quoteCard(rule: CardFeeRule, creditCents: number): CardQuote {
  if (!Number.isSafeInteger(creditCents) || creditCents <= 0)
    throw new RangeError("credit must be whole cents");
  if (rule.mode === "absorb") return { creditCents, feeCents: 0, totalCents: creditCents };
  let total = Math.ceil(((creditCents + rule.fixedCents) * 10_000) / (10_000 - rule.percentBps));
  while (total - Math.ceil((total * rule.percentBps) / 10_000) - rule.fixedCents < creditCents) total += 1;
  return { creditCents, feeCents: total - creditCents, totalCents: total };
}

export function describeFee(rule: CardFeeRule): string {
  const percent = (rule.percentBps / 100).toFixed(2).replace(/\.?0+$/, "");
  const fixed = (rule.fixedCents / 100).toFixed(2);
  return rule.mode === "pass_on"
    ? `Card payments add Stripe's processing fee (${percent}% + $${fixed}) on top, so the full amount you choose is credited.`
    : "The gateway pays Stripe's processing fee: you are charged exactly the amount credited.";
}

/** USD cents to USDC microunits (1 cent = 10,000 microunits). */
export function centsToMicrounits(cents: number | bigint): bigint {
  return BigInt(cents) * 10_000n;
}
