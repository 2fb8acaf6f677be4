import type { Env } from "../env";

/** The dashboard's base: DASHBOARD_URL, or /dashboard on the gateway's public address. */
export function dashboardBaseUrl(env: Env, publicBase: string): string {
  return (env.DASHBOARD_URL ?? `${publicBase}/dashboard`).replace(/\/+$/, "");
}

/** Where Stripe Checkout sends the payer back; Stripe fills in {CHECKOUT_SESSION_ID}. */
export function cardReturnUrls(env: Env, publicBase: string): { success: string; cancel: string } {
  const dashboard = dashboardBaseUrl(env, publicBase);
  return {
    success: `${dashboard}/fund/return?session_id={CHECKOUT_SESSION_ID}`,
    cancel: `${dashboard}/fund?canceled=1`,
  };
}
