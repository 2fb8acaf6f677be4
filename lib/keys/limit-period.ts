/** A key's spend limit resets at 00:00 UTC each day, or on the 1st of each month (UTC). */
export type LimitPeriod = "day" | "month";

/** When the period containing `now` began. */
export function periodStart(period: LimitPeriod, now: Date): Date {
  return period === "day"
    ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
    : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** When the period containing `now` ends and the limit is whole again. */
export function periodEnd(period: LimitPeriod, now: Date): Date {
  return period === "day"
    ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))
    : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}
