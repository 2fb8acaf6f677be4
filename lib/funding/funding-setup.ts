import type { Env } from "../env";

/**
 * What the operator must set for each way in (the admin API's GET /v1/admin/funding). Setting
 * names are for the operator only: customers read that a way is not offered, never which
 * environment variable is missing.
 */
interface FundingMethodSetup {
  enabled: boolean;
  /** Settings still unset, all needed for this method to be offered. */
  missing: string[];
  /** The docs section that explains them. */
  docs: string;
}

export interface FundingSetup {
  card: FundingMethodSetup;
  solana: FundingMethodSetup;
  base: FundingMethodSetup;
}

function method(env: Env, names: (keyof Env)[], docs: string): FundingMethodSetup {
  const missing = names.filter((name) => env[name] === undefined || env[name] === "");
  return { enabled: missing.length === 0, missing: missing.map(String), docs };
}

export function fundingSetup(env: Env): FundingSetup {
  return {
    card: method(
      env,
      ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_PUBLISHABLE_KEY"],
      "/docs/using/funding#operator-setup",
    ),
    solana: method(env, ["SOLANA_DEPOSIT_ADDRESS"], "/docs/using/funding#operator-setup"),
    base: method(
      env,
      ["BASE_DEPOSIT_ADDRESS", "X402_BASE_SETTLER_KEY"],
      "/docs/using/funding#operator-setup",
    ),
  };
}

/** What a customer reads for a way in this gateway does not offer. */
export const notOffered = {
  card: "Card payments are not offered on this gateway.",
  solana: "USDC deposits on Solana are not offered on this gateway.",
  base: "USDC deposits on Base are not offered on this gateway.",
} as const;
