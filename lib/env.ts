import { receiptKeySchema } from "@pod-gateway/contracts/usage-receipt";
import { z } from "zod";
import { decodeSeed } from "./crypto/ed25519-seed";
import { addressCollisions } from "./receiving-addresses";

/**
 * The only reader of `process.env`. Every setting is validated once at start so a
 * misconfigured gateway fails loudly before it accepts traffic.
 */

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

const optionalUrl = optionalString.pipe(z.url().optional());

const upstreamNames = ["openai", "anthropic", "openrouter", "together", "groq", "venice"] as const;
export type CentralizedUpstreamName = (typeof upstreamNames)[number];
export const centralizedUpstreamNames: readonly CentralizedUpstreamName[] = upstreamNames;

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("127.0.0.1"),
  PUBLIC_BASE_URL: optionalUrl,
  DOCS_URL: optionalUrl,
  /** Validated without echoing the value: it carries the database password. */
  DATABASE_URL: optionalString.refine(
    (value) => value === undefined || (/^postgres(?:ql)?:\/\/\S+$/.test(value) && URL.canParse(value)),
    "must be a postgres:// or postgresql:// URL",
  ),
  POD_DATA_DIR: z.string().default("./.data"),
  /** worker: the embedded PGlite runs in a worker thread (its own core); main: on the request thread. */
  PGLITE_THREAD: z.enum(["worker", "main"]).default("worker"),
  /**
   * With POD_DATA_DIR=memory://: a dumped, migrated data directory the database starts from
   * instead of running initdb (seconds of WebAssembly). The test suite makes one per run.
   */
  PGLITE_MEMORY_TEMPLATE: z.string().optional(),
  /**
   * on: `npm start` serves the docs and dashboard too (built in the background when missing or
   * stale; Next loaded on the first page request). off: the API only (replicas behind a proxy).
   */
  POD_PAGES: z.enum(["on", "off"]).default("on"),
  /**
   * Shared by every replica: rate limits, and the marketplace (every replica routes to every
   * replica's agents, provider health is shared). Unset: one process, its own agents only.
   */
  REDIS_URL: optionalString,
  /** Prefix of the marketplace's Redis keys and channels: the same on every replica of one gateway, different per gateway. */
  REDIS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .default("pod"),
  /** This replica's name in /health and logs (per replica; the host name and process id by default). */
  REPLICA_ID: z
    .string()
    .regex(/^[\x21-\x7e]{1,64}$/, "1 to 64 printable characters, no spaces")
    .optional(),
  /** A replica not heard from for this long is dead: its agents leave routing, jobs through it end. */
  REPLICA_TIMEOUT_MS: z.coerce.number().int().min(300).max(60_000).default(3_000),
  ADMIN_TOKEN: optionalString,
  /**
   * The operator's own webhook (lib/operator-console/operator-notices.ts): a host's agent away
   * too long, a host demoted or excluded, a reconcile difference, a payout awaiting approval.
   * Set by the operator, so private addresses are allowed; signed with OPERATOR_WEBHOOK_SECRET.
   */
  OPERATOR_WEBHOOK_URL: optionalUrl,
  OPERATOR_WEBHOOK_SECRET: optionalString.refine((value) => value === undefined || value.length >= 16, {
    message: "at least 16 characters",
  }),
  /** An active host whose agent has been disconnected this long is an operator notice. */
  OPERATOR_AGENT_OFFLINE_SECONDS: z.coerce.number().int().min(0).max(604_800).default(600),
  /** How often the notice pass reconciles the books against their sources; 0 = never (run it by hand). */
  OPERATOR_RECONCILE_MINUTES: z.coerce.number().int().min(0).max(10_080).default(60),
  /** 32-byte key (hex or base64) that encrypts relay keys at rest. */
  POD_ENCRYPTION_KEY: optionalString,
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalUrl,
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalUrl,
  OPENROUTER_API_KEY: optionalString,
  OPENROUTER_BASE_URL: optionalUrl,
  TOGETHER_API_KEY: optionalString,
  TOGETHER_BASE_URL: optionalUrl,
  GROQ_API_KEY: optionalString,
  GROQ_BASE_URL: optionalUrl,
  VENICE_API_KEY: optionalString,
  VENICE_BASE_URL: optionalUrl,
  SOLANA_RPC_URL: optionalUrl,
  /** Owner of the gateway's deposit USDC account. Unset: on-chain deposits (and bonds) are off. */
  SOLANA_DEPOSIT_ADDRESS: optionalString.pipe(
    z
      .string()
      .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "a base58 Solana address")
      .optional(),
  ),
  /** Commitment the deposit watcher waits for before crediting. */
  SOLANA_DEPOSIT_COMMITMENT: z.enum(["confirmed", "finalized"]).default("finalized"),
  /** Seconds between the deposit watcher's passes (with SOLANA_DEPOSIT_ADDRESS set). */
  SOLANA_DEPOSIT_POLL_SECONDS: z.coerce.number().int().min(1).max(3600).default(15),
  /** RPC URL the dashboard's browser code uses (defaults to SOLANA_RPC_URL). */
  SOLANA_PUBLIC_RPC_URL: optionalUrl,
  DASHBOARD_URL: optionalUrl,
  /** Stripe card funding: off unless the secret, webhook secret and publishable key are all set. */
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_PUBLISHABLE_KEY: optionalString,
  /** Where the Stripe SDK sends API calls (Stripe's own by default; a local fake in tests). */
  STRIPE_API_BASE: optionalUrl,
  CARD_MIN_USD: z.coerce.number().int().positive().default(5),
  CARD_MAX_USD: z.coerce.number().int().positive().default(500),
  /** pass_on: the payer pays Stripe's fee on top of the credit; absorb: the gateway pays it. */
  CARD_FEE_MODE: z.enum(["pass_on", "absorb"]).default("pass_on"),
  /** Stripe's card fee the surcharge covers: basis points plus a fixed amount in cents. */
  CARD_FEE_PERCENT_BPS: z.coerce.number().int().min(0).max(2000).default(290),
  CARD_FEE_FIXED_CENTS: z.coerce.number().int().min(0).max(500).default(30),
  /**
   * x402: the Solana cluster quotes name, as its CAIP-2 id (`solana:` + genesis hash prefix).
   * Mainnet by default; devnet/testnet for trials and for the local test chain.
   */
  SOLANA_NETWORK: z
    .enum([
      "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
      "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
      "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z",
    ])
    .default("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"),
  /** x402: the wallet (owner address) payments go to. Unset disables the x402 endpoints. */
  X402_PAY_TO: optionalString,
  /**
   * x402: the fee payer that co-signs standard-scheme payments, as a base58 64-byte secret
   * key or a solana-keygen JSON array. Unset: outside production a throwaway key is generated
   * at start; in production the standard entries are left out of quotes.
   */
  X402_FEE_PAYER_SECRET: optionalString,
  /** x402: lamports the fee payer may spend on sponsored fees per UTC day (0.05 SOL by default). */
  X402_SPONSORED_FEE_DAILY_BUDGET_LAMPORTS: z.coerce.bigint().nonnegative().default(50_000_000n),
  /** x402 on Base: the address USDC payments go to. Unset: quotes carry no Base entry. */
  X402_BASE_PAY_TO: optionalString.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, "X402_BASE_PAY_TO must be a 0x-prefixed 20-byte address")
      .optional(),
  ),
  /** x402 on Base: the EVM chain quotes name, as CAIP-2 (Base by default; eip155:84532 is Base Sepolia). */
  X402_BASE_NETWORK: z
    .string()
    .regex(/^eip155:[1-9][0-9]*$/, "X402_BASE_NETWORK must be a CAIP-2 eip155 id such as eip155:8453")
    .default("eip155:8453"),
  /** x402 on Base: JSON-RPC endpoint of X402_BASE_NETWORK (the public Base endpoint by default). */
  BASE_RPC_URL: optionalUrl,
  /** x402 on Base: the USDC contract; Circle's USDC of the network by default. */
  X402_BASE_USDC: optionalString.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, "X402_BASE_USDC must be a 0x-prefixed 20-byte address")
      .optional(),
  ),
  /** x402 on Base: an external facilitator (its /verify, /settle, /supported). Unset: in-process. */
  X402_FACILITATOR_URL: optionalUrl,
  /**
   * x402 on Base: the in-process facilitator's private key (0x + 32 bytes hex). It submits
   * transferWithAuthorization and pays the gas; never the pay-to address. Unset without a
   * facilitator URL: no Base entries.
   */
  X402_BASE_SETTLER_KEY: optionalString.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, "X402_BASE_SETTLER_KEY must be a 0x-prefixed 32-byte hex key")
      .optional(),
  ),
  /** x402 on Base: wei the settler may spend on gas per UTC day (0.005 ETH by default). */
  X402_BASE_GAS_DAILY_BUDGET_WEI: z.coerce.bigint().nonnegative().default(5_000_000_000_000_000n),
  /**
   * USDC deposits on Base: the address a token's EIP-3009 deposits pay (the chain, RPC, USDC
   * contract, settler key and gas budget are the x402 Base settings above). Unset: off. Must
   * differ from X402_BASE_PAY_TO, so an authorization is either an x402 payment or a deposit,
   * never both; needs X402_BASE_SETTLER_KEY, which submits deposits and pays their gas.
   */
  BASE_DEPOSIT_ADDRESS: optionalString.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, "BASE_DEPOSIT_ADDRESS must be a 0x-prefixed 20-byte address")
      .optional(),
  ),
  /** x402: overrides the USDC mint of SOLANA_NETWORK (Circle's mint by default). */
  X402_USDC_MINT: optionalString,
  /** x402: how long a quote stays payable. */
  /**
   * Require a self-broadcast payment to carry `proof` (payer_wallet's signature over the quote
   * id). Off by default for clients of the reference service; on, a watcher cannot spend a
   * transfer it saw on-chain for its own quote.
   */
  X402_REQUIRE_PAYER_PROOF: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((value) => value === "true" || value === "1"),
  /** Paid x402 attempts (requests carrying a payment header) per client address per minute. */
  X402_PAYMENT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(60),
  /** Unpaid x402 quotes per client address per minute: each one writes a quote row. */
  X402_QUOTE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(120),
  X402_QUOTE_TTL_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  /** x402 SOL rail: the live SOL/USD feed (Coinbase spot by default). */
  SOL_PRICE_URL: optionalUrl,
  /** x402 SOL rail: a fixed SOL/USD price (e.g. `150.25`) instead of the live feed, for offline dev. */
  SOL_PRICE_USD: optionalString.pipe(
    z
      .string()
      .regex(/^\d{1,9}(\.\d{1,6})?$/, "a decimal USD price such as 150.25")
      .optional(),
  ),
  /**
   * Low-balance alert webhooks may go to http:// and to private, loopback or link-local
   * addresses (a gateway on a private network, tests). Off: https to public addresses only.
   */
  BALANCE_ALERT_ALLOW_PRIVATE_URLS: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((value) => value === "true" || value === "1"),
  /** Behind a reverse proxy: take the client IP from X-Forwarded-For instead of the socket. */
  TRUST_PROXY: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((value) => value === "true" || value === "1"),
  REGISTER_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(10),
  /** count_tokens calls per token per minute: they are free to the caller but use an upstream key. */
  COUNT_TOKENS_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(120),
  /** How often prices are refreshed from upstream model lists (OpenRouter, Together); 0 = only on demand. */
  CATALOG_REFRESH_MINUTES: z.coerce.number().int().min(0).max(10_080).default(360),
  /** The dataset's live source (models.dev's api.json), read on each refresh when set and reachable. */
  MODELS_DEV_URL: optionalUrl,
  /** How long a stored Responses answer (`store`, the API's default) is kept for its token. */
  RESPONSES_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** The largest stored response (conversation and answer together); a larger one is not kept. */
  RESPONSES_MAX_STORED_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  HOLD_TTL_SECONDS: z.coerce.number().int().positive().default(900),
  /**
   * The response cache (lib/response-cache): `on` lets a request (X-Pod-Cache: on, or the body's
   * `cache`) or a key (`response_cache`) ask for it; `off` ignores both. Entries live in Redis when
   * REDIS_URL is set (every replica reads them), else in this process's memory.
   */
  RESPONSE_CACHE: z.enum(["on", "off"]).default("on"),
  /**
   * on: one account's cached answer may answer the same request from another account (an
   * operator's choice for public, non-personal workloads); off: every entry belongs to one account.
   */
  RESPONSE_CACHE_SHARED: z.enum(["on", "off"]).default("off"),
  /** How long an entry answers (a request may ask for less with X-Pod-Cache-TTL). */
  RESPONSE_CACHE_TTL_SECONDS: z.coerce.number().int().min(1).max(604_800).default(3_600),
  /** Most entries kept (the oldest go first): with the entry cap, the cache's memory bound. */
  RESPONSE_CACHE_MAX_ENTRIES: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  /** The largest answer kept (bytes of its JSON); a larger one is served and not kept. */
  RESPONSE_CACHE_MAX_ENTRY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(256 * 1024),
  /** A hit costs this share of what the answer cost when it was generated, in percent (rounded up to the microunit). */
  RESPONSE_CACHE_HIT_PERCENT: z.coerce.number().int().min(0).max(100).default(10),
  /**
   * A request without its own output limit holds at most 1/HOLD_BALANCE_SHARE of the free
   * balance (or its worst case, if smaller) and its forwarded limit is bounded to match.
   */
  HOLD_BALANCE_SHARE: z.coerce.number().int().min(1).max(1_000_000).default(32),
  /**
   * A request on a limited API key whose worst case does not fit beside the key's requests in
   * flight waits this long for them to settle before it takes what is left or is refused as crowded.
   */
  /**
   * How long a replica uses a further API key from its cache before reading it again: how long
   * a revoked or rotated key may still work on another replica when the change's signal is lost
   * (replicas sharing REDIS_URL hear it within a pub/sub hop and drop the key at once).
   */
  KEY_CACHE_MS: z.coerce.number().int().min(0).max(600_000).default(1_000),
  KEY_CLAIM_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  /**
   * on: prepaid requests hold and settle against a per-process slice of the token's balance
   * (lib/ledger/balance-lease.ts), with settlements journaled to disk and written in batches;
   * off: each request's hold and settlement are database statements of their own.
   */
  BALANCE_LEASE: z.enum(["on", "off"]).default("on"),
  /** A lease with nothing in flight and nothing unwritten for this long goes back to the balance. */
  BALANCE_LEASE_IDLE_MS: z.coerce.number().int().positive().default(2_000),
  /** How long a settlement waits for others to share its database write (0: write at once). */
  BALANCE_LEASE_WRITE_DELAY_MS: z.coerce.number().int().min(0).max(1_000).default(20),
  /** Settlements served but not yet written (default: <POD_DATA_DIR>/journal); replayed at start. */
  BILLING_JOURNAL_DIR: z.string().optional(),
  /**
   * Where answered settlements wait for the ledger: `database` (a shared table any replica
   * replays when this one dies), `file` (BILLING_JOURNAL_DIR, replayed by the next start on
   * the same disk), `auto`: database on Postgres, file on the embedded PGlite.
   */
  BILLING_JOURNAL: z.enum(["auto", "database", "file"]).default("auto"),
  /**
   * How many answers may go out before their settlements are stored (0: every answer waits for
   * its journal row or line). Those skip the journal, the database's or the file, and go straight
   * to the ledger's next batch. A process killed meanwhile leaves at most this many answers unbilled, in
   * the caller's favour (content/docs/resources/crash-recovery.mdx). It was 64 until a bench showed
   * it full under load, with most answers waiting for journal rows (bench/results.md).
   */
  BILLING_JOURNAL_WINDOW: z.coerce.number().int().min(0).max(10_000).default(512),
  /**
   * At most this much of those answers' cost (microunits) may be out unstored at once: the money a
   * process killed meanwhile can leave unbilled. An answer past it waits for its journal row.
   */
  BILLING_JOURNAL_WINDOW_MICROUNITS: z.coerce
    .bigint()
    .nonnegative()
    .lte(10n ** 15n)
    .default(1_000_000n),
  /** How often a replica looks for dead ones, bills their journals and releases their holds. */
  DEAD_INSTANCE_CHECK_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  /** A non-streamed upstream body larger than this is refused (502) instead of buffered. */
  MAX_UPSTREAM_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /**
   * A client that reads nothing of its stream for this long is cut off: the upstream is
   * aborted and what was streamed is billed, so a paused reader cannot hold a hold open.
   */
  STREAM_WRITE_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /** The whole request (headers and body) must arrive within this; slower clients get a 408. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(200).max(600_000).default(60_000),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(4 * 1024 * 1024),
  /** Dev only: an in-process simulated upstream so the whole flow can be tried offline. */
  POD_SIMULATOR: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((value) => value === "true" || value === "1"),
  /** Provider agents: the time a marketplace job may take, sent to the agent as `deadline_ms`. */
  PROVIDER_JOB_DEADLINE_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * Provider agents: the time an agent has to send a job's first chunk. Past it the caller is
   * failed over to the next candidate and the miss is on the host's trust record; far shorter
   * than PROVIDER_JOB_DEADLINE_MS (which caps it), so a host that accepts and never answers holds
   * a caller this long, not the whole job's time.
   */
  PROVIDER_FIRST_CHUNK_MS: z.coerce.number().int().positive().default(10_000),
  /** Provider agents: a started answer may go this long without a chunk (unless the gateway paused it). */
  PROVIDER_STALL_MS: z.coerce.number().int().positive().default(20_000),
  /** Provider agents beat every 15 s; an agent silent this long is out of routing. */
  PROVIDER_HEARTBEAT_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * Host cashouts: the payout wallet's secret key (base58 64-byte secret or a solana-keygen
   * JSON array). It pays withdrawals and bond returns in USDC; unset, payouts wait in `requested`.
   */
  HOST_PAYOUT_SECRET: optionalString,
  HOST_WITHDRAW_MIN_MICROUNITS: z.coerce.bigint().positive().default(5_000_000n),
  HOST_WITHDRAW_DAILY_CAP_MICROUNITS: z.coerce.bigint().positive().default(10_000_000_000n),
  /** Withdrawals above this within 30 days of enrolment wait for an admin's approval. */
  HOST_WITHDRAW_REVIEW_MICROUNITS: z.coerce.bigint().positive().default(1_000_000_000n),
  /**
   * Earnings are withdrawable this long after they were credited (7 days by default): fraud
   * found in that window is paid back to callers from them (slashing) before they can leave.
   */
  HOST_EARNINGS_MATURITY_SECONDS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(7 * 24 * 3600),
  /**
   * Share of marketplace jobs followed by a hidden canary job to the same host and model (1%),
   * sent within CANARY_MAX_DELAY_MS; 0 turns canaries off.
   */
  CANARY_SHARE: z.coerce.number().min(0).max(1).default(0.01),
  CANARY_MAX_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /**
   * A file of prompts kept off the repository (one a line: a JSON string, a JSON object with a
   * `prompt`, `instruction`, `text` or `question` field, or plain text) that canaries' user turns
   * are drawn from; unset, a trusted centralized source of the model invents every canary's words.
   */
  CANARY_CORPUS_PATH: optionalString,
  /**
   * Share of real marketplace answers checked after the caller was served: scored under a trusted
   * reference of the same model among the request's own candidates (lib/canaries/check-answer.ts);
   * 0 turns checks off. 12% catches a host cheating on 10% of its jobs within 500 jobs in the
   * simulation (bench/results.md).
   */
  VERIFY_SHARE: z.coerce.number().min(0).max(1).default(0.12),
  /** What answer checks may spend on reference scoring per day, per gateway process. */
  VERIFY_DAILY_BUDGET_MICROUNITS: z.coerce.bigint().nonnegative().default(50_000_000n),
  /** The chance an honest host is excluded within VERIFY_HORIZON checked answers (an upper bound). */
  VERIFY_FALSE_ALARM: z.coerce.number().positive().max(0.5).default(0.01),
  VERIFY_HORIZON: z.coerce.number().int().positive().default(10_000),
  /**
   * Samples of the same request a reference without log-probabilities answers per checked
   * answer (lib/canaries/resample-answer.ts): one answer is then evidence of at most this plus 1.
   */
  VERIFY_RESAMPLES: z.coerce.number().int().min(1).max(16).default(4),
  /** Slash a host automatically once canaries prove it serves another model (lib/trust/reputation.ts). */
  TRUST_AUTO_SLASH: z
    .enum(["on", "off"])
    .default("on")
    .transform((value) => value === "on"),
  /** Time between retirement and the bond's return (90 days). */
  HOST_BOND_COOLDOWN_SECONDS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(90 * 24 * 3600),
  /**
   * Signed usage receipts (lib/receipts): on, every billed request's answer carries one
   * (`X-Pod-Receipt`) and it is stored; off, none is made.
   */
  RECEIPTS: z.enum(["on", "off"]).default("on"),
  /**
   * The Ed25519 key receipts are signed with: its 32-byte seed, hex or base64(url)
   * (`npx pod-gateway receipt-key new` makes one). Unset: outside production a development key is
   * made once under POD_DATA_DIR; in production receipts are off until one is set.
   */
  RECEIPT_SIGNING_KEY: optionalString.refine(
    (value) => value === undefined || decodeSeed(value) !== undefined,
    "must be a 32-byte Ed25519 seed in hex or base64",
  ),
  /** When RECEIPT_SIGNING_KEY began signing (ISO 8601): the start of its published window. */
  RECEIPT_SIGNING_KEY_SINCE: optionalString.pipe(z.iso.datetime({ offset: true }).optional()),
  /**
   * Retired receipt keys, still published so their receipts keep verifying: a JSON array of
   * the JWKs `npx pod-gateway receipt-key retire` prints (each with its `nbf` and `exp`).
   */
  RECEIPT_KEY_HISTORY: optionalString.transform((value, context) => {
    if (value === undefined) return [];
    let json: unknown;
    try {
      json = JSON.parse(value);
    } catch {
      context.addIssue({ code: "custom", message: "must be a JSON array of retired receipt keys" });
      return z.NEVER;
    }
    const parsed = z
      .array(receiptKeySchema.required({ exp: true }))
      .max(99)
      .safeParse(json);
    if (!parsed.success) {
      context.addIssue({
        code: "custom",
        message: `not a list of retired receipt keys: ${parsed.error.issues[0]?.message}`,
      });
      return z.NEVER;
    }
    return parsed.data;
  }),
  /** The `iss` of receipts (PUBLIC_BASE_URL by default, else "pod-gateway"). */
  RECEIPT_ISSUER: optionalString,
  /**
   * OpenTelemetry traces (lib/telemetry), off by default: the standard variables. Traces go by
   * OTLP/HTTP to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  OTEL_TRACES_EXPORTER: z.enum(["otlp", "none"]).default("otlp"),
  OTEL_SDK_DISABLED: z
    .enum(["true", "false"])
    .default("false")
    .transform((value) => value === "true"),
  OTEL_SERVICE_NAME: optionalString,
  /**
   * Per-request usage records (lib/usage-records), off unless a destination is named: the
   * operator's webhook (a batch per POST, signed with USAGE_RECORDS_WEBHOOK_SECRET as every
   * gateway webhook is) and/or an OTLP/HTTP logs endpoint: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, or
   * OTEL_LOGS_EXPORTER=otlp with OTEL_EXPORTER_OTLP_ENDPOINT + /v1/logs (traces alone do not
   * turn records on: they say what each caller spent).
   */
  USAGE_RECORDS_WEBHOOK_URL: optionalUrl,
  USAGE_RECORDS_WEBHOOK_SECRET: optionalString.refine((value) => value === undefined || value.length >= 16, {
    message: "at least 16 characters",
  }),
  OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: optionalUrl,
  OTEL_LOGS_EXPORTER: z.enum(["otlp", "none"]).default("none"),
  /** `key=value,key=value` (values URL-encoded), sent with each OTLP logs export: a collector's API key. */
  OTEL_EXPORTER_OTLP_LOGS_HEADERS: optionalString.transform((value, context) => {
    if (value === undefined) return undefined;
    const headers = otlpHeaders(value);
    if (headers) return headers;
    context.addIssue({ code: "custom", message: "not key=value pairs separated by commas" });
    return z.NEVER;
  }),
  /** Put the request body and the answer's text in each record (off: counts, money and ids only). */
  USAGE_RECORDS_CONTENT: z.enum(["on", "off"]).default("off"),
  /** The most records waiting to be sent; more are dropped (and counted) while a receiver is down. */
  USAGE_RECORDS_QUEUE_MAX: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  USAGE_RECORDS_BATCH_MAX: z.coerce.number().int().min(1).max(1000).default(100),
  /** How long a record waits for others to share its POST. */
  USAGE_RECORDS_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(1_000),
  USAGE_RECORDS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** How long a stopping gateway keeps trying to send what is queued. */
  USAGE_RECORDS_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  LOG_LEVEL: z.enum(["silent", "error", "warn", "info", "debug"]).default("info"),
});

export type Env = z.infer<typeof envSchema>;

export class EnvError extends Error {
  override readonly name = "EnvError";
}

/** Parses a raw environment (defaults to `process.env`) into a typed config or throws a readable error. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new EnvError(`invalid environment:\n  ${problems.join("\n  ")}`);
  }
  const problems = crossFieldProblems(parsed.data);
  // One problem is one line (what a start-up failure prints); several are listed.
  if (problems.length === 1) throw new EnvError(`invalid environment: ${problems[0]}`);
  if (problems.length > 1) throw new EnvError(`invalid environment:\n  ${problems.join("\n  ")}`);
  return parsed.data;
}

/** Settings that are each valid alone but not together. */
/** `key=value,key=value` as the OTEL_EXPORTER_OTLP_*_HEADERS variables write them, or undefined when it is not. */
function otlpHeaders(text: string): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=");
    const key = pair.slice(0, at).trim();
    if (at < 1 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) return undefined;
    try {
      headers[key.toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      return undefined;
    }
  }
  return headers;
}

function crossFieldProblems(env: Env): string[] {
  const problems = addressCollisions(env);
  if (env.USAGE_RECORDS_WEBHOOK_URL && !env.USAGE_RECORDS_WEBHOOK_SECRET)
    problems.push(
      "USAGE_RECORDS_WEBHOOK_URL: needs USAGE_RECORDS_WEBHOOK_SECRET (each POST is signed with it)",
    );
  const deposit = env.BASE_DEPOSIT_ADDRESS?.toLowerCase();
  if (deposit && !env.X402_BASE_SETTLER_KEY) {
    problems.push(
      "BASE_DEPOSIT_ADDRESS: needs X402_BASE_SETTLER_KEY (the gateway submits each deposit authorization and pays its gas)",
    );
  }
  return problems;
}

export interface UpstreamConfig {
  name: CentralizedUpstreamName;
  apiKey: string | undefined;
  baseUrl: string | undefined;
}

/** The configured key and base URL of each centralized upstream, in catalog order. */
export function upstreamConfigs(env: Env): UpstreamConfig[] {
  const pick = (name: CentralizedUpstreamName, apiKey: string | undefined, baseUrl: string | undefined) => ({
    name,
    apiKey,
    baseUrl,
  });
  return [
    pick("openai", env.OPENAI_API_KEY, env.OPENAI_BASE_URL),
    pick("anthropic", env.ANTHROPIC_API_KEY, env.ANTHROPIC_BASE_URL),
    pick("openrouter", env.OPENROUTER_API_KEY, env.OPENROUTER_BASE_URL),
    pick("together", env.TOGETHER_API_KEY, env.TOGETHER_BASE_URL),
    pick("groq", env.GROQ_API_KEY, env.GROQ_BASE_URL),
    pick("venice", env.VENICE_API_KEY, env.VENICE_BASE_URL),
  ];
}
