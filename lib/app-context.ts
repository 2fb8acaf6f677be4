import path from "node:path";
import { BalanceWatcher } from "./balance-watch/balance-watcher";
import type { CatalogIndex } from "./catalog/catalog-index";
import { CatalogStore } from "./catalog/catalog-store";
import { seedCatalog } from "./catalog/seed-catalog";
import { type DatabaseHandle, openDatabase } from "./db/client";
import { asDatabaseStartStep } from "./db/database-unavailable";
import { type BaseDepositSettings, baseDepositsLoader } from "./deposits/base-deposit-config";
import type { CentralizedUpstreamName, Env } from "./env";
import { loadEnv } from "./env";
import { cardSettings } from "./funding/card-settings";
import { KeySpendLimits } from "./keys/key-spend-limits";
import { BalanceLeases } from "./ledger/balance-lease";
import { DatabaseJournal } from "./ledger/database-journal";
import { HoldKeeper } from "./ledger/hold-keeper";
import { releaseExpiredHolds } from "./ledger/holds";
import { replayJournals } from "./ledger/replay-journals";
import { type Journal, SettlementJournal } from "./ledger/settlement-journal";
import { log, setLogLevel } from "./log";
import { startMaintenance } from "./maintenance";
import { type PayoutRail, payoutRailLoader } from "./payouts/payout-worker";
import { type CentralizedUpstream, configuredUpstreams } from "./providers/centralized-upstreams";
import type { RateLimiter } from "./rate-limit/fixed-window";
import { createLimiterFactory } from "./rate-limit/shared-limiter";
import { createRoutingState, type RoutingState } from "./routing/routing-state";
import { createX402Wiring, type X402Wiring } from "./x402/x402-wiring";

/** Everything a handler needs, built once per process from validated env. */
export interface AppContext {
  env: Env;
  database: DatabaseHandle;
  /** This process's holds: tagged, kept alive while their request runs, released if it dies. */
  holds: HoldKeeper;
  /** Prepaid holds and settlements against per-process balance leases; undefined with BALANCE_LEASE=off. */
  leases: BalanceLeases | undefined;
  /** Where this process journals what it served before the ledger has it (shared by leases and streams on hold rows). */
  journal: Journal;
  /** Further API keys' spend limits, enforced in memory (lib/keys/key-spend-limits.ts). */
  keyLimits: KeySpendLimits;
  /** Low-balance alerts and auto top-up, checked after charges (lib/balance-watch). */
  balanceWatch: BalanceWatcher;
  /** The in-memory catalog index; `catalogStore` replaces it whenever the catalog changes. */
  catalog: CatalogIndex;
  catalogStore: CatalogStore;
  upstreams: Map<CentralizedUpstreamName, CentralizedUpstream>;
  /** Marketplace supply and provider health; the provider-agent registry or a test double replaces it. */
  routing: RoutingState;
  registerLimiter: RateLimiter;
  /** Paid x402 attempts per client address: each one can cost RPC calls and simulations. */
  x402PaymentLimiter: RateLimiter;
  /** Unpaid x402 quotes per client address: each one writes a quote row. */
  x402QuoteLimiter: RateLimiter;
  /** count_tokens calls per token: free to the caller, forwarded on the operator's key. */
  countTokensLimiter: RateLimiter;
  /** USDC deposits on Base: the chain clients and the settling wallet, built on first use. */
  baseDeposits(): BaseDepositSettings;
  /** The host payout wallet and chain, built on first use; undefined without HOST_PAYOUT_SECRET. */
  payoutRail(): Promise<PayoutRail | undefined>;
  /** x402 payments: the configured rails and their background reconciliation. */
  x402: X402Wiring;
  close(): Promise<void>;
}

export interface CreateAppContextOptions {
  /** Extra or overriding settings (tests). */
  env?: Env;
  /** Skip the background upkeep: hold sweeper, x402 reconciliation (tests drive them by hand). */
  sweeper?: boolean;
}

/** How soon a replica counts another's charges against a key's limit. */
const keyLimitRefreshMs = 1_000;

/** How soon a replica sees another's catalog change. */
const catalogPollMs = 5_000;

export async function createAppContext(options: CreateAppContextOptions = {}): Promise<AppContext> {
  const env = options.env ?? loadEnv();
  setLogLevel(env.LOG_LEVEL);
  const database = await asDatabaseStartStep(env.DATABASE_URL, async () => {
    const opened = await openDatabase({
      url: env.DATABASE_URL,
      dataDir: env.POD_DATA_DIR,
      pgliteThread: env.PGLITE_THREAD,
    });
    try {
      await opened.migrate();
    } catch (error) {
      await opened.close().catch(() => {});
      throw error;
    }
    return opened;
  });
  const upstreams = configuredUpstreams(env);
  // Seeding is once-only work: replicas starting together take turns, and the later ones find it done.
  await database.exclusively("start-up", () => seedCatalog(database.db, [...upstreams.keys()]));
  const holds = new HoldKeeper(database, env.HOLD_TTL_SECONDS, env.DEAD_INSTANCE_CHECK_SECONDS * 1000);
  const journalDirectory = env.BILLING_JOURNAL_DIR ?? path.join(env.POD_DATA_DIR, "journal");
  // Settlements a dead process served but never wrote are billed before its leases go back.
  const started = await holds.start((isDead) =>
    replayJournals(database.db, journalDirectory, holds.instanceId, isDead),
  );
  const released = started + (await releaseExpiredHolds(database.db));
  if (released > 0) log.warn("released holds left by an earlier process", { released });
  // Leases journal their settlements here; streams on hold rows (x402) their running counts.
  const journal = settlementJournal(env, database, journalDirectory, holds.instanceId);
  const leases =
    env.BALANCE_LEASE === "on"
      ? new BalanceLeases({
          database: database.db,
          holds,
          journal,
          ttlSeconds: env.HOLD_TTL_SECONDS,
          idleMs: env.BALANCE_LEASE_IDLE_MS,
          writeDelayMs: env.BALANCE_LEASE_WRITE_DELAY_MS,
        })
      : undefined;

  const limiters = await createLimiterFactory(env.REDIS_URL, env.REDIS_NAMESPACE);

  let stopMaintenance: (() => void) | undefined;
  const catalogStore = new CatalogStore(database.db);
  const catalog = await catalogStore.reload();
  const app: AppContext = {
    env,
    database,
    holds,
    leases,
    journal,
    keyLimits: new KeySpendLimits({ database: database.db, refreshMs: keyLimitRefreshMs }),
    balanceWatch: new BalanceWatcher({
      database: database.db,
      leases,
      card: () => cardSettings(env),
      allowPrivateUrls: env.BALANCE_ALERT_ALLOW_PRIVATE_URLS,
    }),
    catalog,
    catalogStore,
    upstreams,
    routing: createRoutingState(env, holds.instanceId),
    registerLimiter: limiters.perMinute(env.REGISTER_RATE_LIMIT_PER_MINUTE, "register"),
    x402PaymentLimiter: limiters.perMinute(env.X402_PAYMENT_RATE_LIMIT_PER_MINUTE, "x402-payment"),
    x402QuoteLimiter: limiters.perMinute(env.X402_QUOTE_RATE_LIMIT_PER_MINUTE, "x402-quote"),
    countTokensLimiter: limiters.perMinute(env.COUNT_TOKENS_RATE_LIMIT_PER_MINUTE, "count-tokens"),
    payoutRail: payoutRailLoader(env),
    baseDeposits: baseDepositsLoader(env),
    x402: createX402Wiring(env, database.db),
    async close() {
      stopMaintenance?.();
      catalogStore.stop();
      await app.routing.registry.close();
      await limiters.close();
      // Stopping leases closes the journal they share.
      if (leases) await leases.stop();
      else journal.close();
      await holds.stop((leases?.unwritten ?? 0) > 0);
      await database.close();
    },
  };
  await app.routing.reputation.refresh(database.db);
  catalogStore.installInto((index) => {
    app.catalog = index;
  });
  if (options.sweeper !== false) {
    stopMaintenance = startMaintenance(app);
    catalogStore.startPolling(catalogPollMs);
  }
  return app;
}

/** On a shared database the journal is shared too, so a surviving replica bills what a dead one served. */
function settlementJournal(
  env: Env,
  database: DatabaseHandle,
  directory: string,
  instanceId: string,
): Journal {
  const file = new SettlementJournal(directory, instanceId);
  const shared =
    env.BILLING_JOURNAL === "database" || (env.BILLING_JOURNAL === "auto" && database.kind === "postgres");
  return shared ? new DatabaseJournal(database.db, instanceId, file) : file;
}

const globalKey = Symbol.for("pod-gateway.app-context");
type GlobalWithContext = typeof globalThis & { [globalKey]?: Promise<AppContext> };

/** The process-wide context for route files; created on first use and shared with server.ts. */
export function getAppContext(): Promise<AppContext> {
  const holder = globalThis as GlobalWithContext;
  holder[globalKey] ??= createAppContext();
  return holder[globalKey];
}

/** Lets server.ts (or a test) install the context the route files will then share. */
export function setAppContext(context: AppContext): void {
  (globalThis as GlobalWithContext)[globalKey] = Promise.resolve(context);
}
