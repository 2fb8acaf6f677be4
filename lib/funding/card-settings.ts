import Stripe from "stripe";
import type { Env } from "../env";
import type { CardFeeRule } from "./card-fee";
import { notOffered } from "./funding-setup";

/** Card funding as configured: a Stripe client and the limits and fee rule of top-ups. */
export interface CardConfig {
  enabled: true;
  stripe: Stripe;
  webhookSecret: string;
  publishableKey: string;
  minUsd: number;
  maxUsd: number;
  presetsUsd: number[];
  fee: CardFeeRule;
  currency: "usd";
}

export type CardSettings =
  | CardConfig
  | { enabled: false; reason: string; minUsd: number; maxUsd: number; fee: CardFeeRule };

const defaultPresets = [5, 20, 50, 100];
const built = new WeakMap<Env, CardSettings>();

/** Card funding is on only with all three Stripe keys; one Stripe client per env. */
export function cardSettings(env: Env): CardSettings {
  const cached = built.get(env);
  if (cached) return cached;
  const settings = buildCardSettings(env);
  built.set(env, settings);
  return settings;
}

function buildCardSettings(env: Env): CardSettings {
  const fee: CardFeeRule = {
    mode: env.CARD_FEE_MODE,
    percentBps: env.CARD_FEE_PERCENT_BPS,
    fixedCents: env.CARD_FEE_FIXED_CENTS,
  };
  const limits = { minUsd: env.CARD_MIN_USD, maxUsd: Math.max(env.CARD_MIN_USD, env.CARD_MAX_USD) };
  const secret = env.STRIPE_SECRET_KEY;
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET;
  const publishableKey = env.STRIPE_PUBLISHABLE_KEY;
  if (!secret || !webhookSecret || !publishableKey) {
    return {
      enabled: false,
      // Customers read this; what the operator must set is in GET /v1/admin/funding.
      reason: notOffered.card,
      fee,
      ...limits,
    };
  }
  const presets = defaultPresets.filter((usd) => usd >= limits.minUsd && usd <= limits.maxUsd);
  return {
    enabled: true,
    stripe: new Stripe(secret, {
      ...apiLocation(env.STRIPE_API_BASE),
      timeout: 15_000,
      maxNetworkRetries: 1,
    }),
    webhookSecret,
    publishableKey,
    presetsUsd: presets.length > 0 ? presets : [limits.minUsd],
    fee,
    currency: "usd",
    ...limits,
  };
}

/** STRIPE_API_BASE as the SDK's host/port/protocol options; unset keeps Stripe's own API. */
function apiLocation(base: string | undefined): {
  host?: string;
  port?: number;
  protocol?: "http" | "https";
} {
  if (!base) return {};
  const url = new URL(base);
  const protocol = url.protocol === "http:" ? "http" : "https";
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : protocol === "http" ? 80 : 443,
    protocol,
  };
}
