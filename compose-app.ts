import type { ApiServices } from "./lib/api/api-services";
import { BalanceWatcher } from "./lib/balance-watch/balance-watcher";
import { CatalogStore } from "./lib/catalog/catalog-store";
import { seedCatalog } from "./lib/catalog/seed-catalog";
import { type Database, type DatabaseHandle, openDatabase } from "./lib/db/client";
import { readDatabaseId } from "./lib/db/database-identity";
import { asDatabaseStartStep } from "./lib/db/database-unavailable";
import { baseDepositsLoader } from "./lib/deposits/evm/base-deposit-config";
import type { Env } from "./lib/env";
import { loadEnv } from "./lib/env";
import { cardSettings } from "./lib/funding/card-settings";
import { KeySpendLimits } from "./lib/keys/key-spend-limits";
import { BalanceLeases } from "./lib/ledger/balance-lease";
import { DatabaseJournal } from "./lib/ledger/database-journal";
import { HoldKeeper } from "./lib/ledger/hold-keeper";
import { releaseExpiredHolds } from "./lib/ledger/holds";
import { type JournalLocation, journalLocation } from "./lib/ledger/journal-location";
import { replayJournals } from "./lib/ledger/replay-journals";
import { type Journal, SettlementJournal, VolatileJournal } from "./lib/ledger/settlement-journal";
import { log, setLogLevel } from "./lib/log";
import { startMaintenance } from "./lib/maintenance";
import { payoutRailLoader } from "./lib/payouts/solana/solana-payout-rail";
import { configuredUpstreams } from "./lib/providers/centralized-upstreams";
import { createLimiterFactory } from "./lib/rate-limit/shared-limiter";
import { loadReceiptIssuer } from "./lib/receipts/receipt-issuer";
import { connectReplicaSignals, type ReplicaSignals } from "./lib/replica-signals/replica-signals";
import { createResponseCache } from "./lib/response-cache/response-cache";
import { PendingResponseStores } from "./lib/responses/pending-stores";
import { createRoutingState } from "./lib/routing/routing-state";
import { startTracing } from "./lib/telemetry/tracing";
import { forgetHere, shareCredentialChanges } from "./lib/tokens/authenticate-token";
import { refreshReputations } from "./lib/trust/reputation";
import { TrustFindingRecorder } from "./lib/trust/trust-finding-recorder";
import { preloadTokenizer } from "./lib/usage/tokenizer";
import { loadUsageRecords } from "./lib/usage-records/usage-records";
import { createX402Wiring } from "./lib/x402/x402-wiring";

/**
 * The composition root: the one place that builds the process's services from validated env,
 * starts their upkeep, and closes them. Everything below takes the members it reads.
 */

/** The services of one gateway process (what a handler reaches as `call.app`), and how to stop them. */
export interface AppContext extends ApiServices {
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
      memoryTemplate: env.PGLITE_MEMORY_TEMPLATE,
    });
    try {
      await opened.migrate();
    } catch (error) {
      await opened.close().catch(() => {});
      throw error;
    }
    return opened;
  });
  const stopTracing = await startTracing(env);
  const upstreams = configuredUpstreams(env);
  // Seeding is once-only work: replicas starting together take turns, and the later ones find it done.
  await database.exclusively("start-up", () => seedCatalog(database.db, [...upstreams.keys()]));
  const holds = new HoldKeeper(database, env.HOLD_TTL_SECONDS, env.DEAD_INSTANCE_CHECK_SECONDS * 1000);
  const location = journalLocation(env, database, {
    instanceId: holds.instanceId,
    databaseId: await readDatabaseId(database.db),
  });
  // Settlements a dead process served but never wrote are billed before its leases go back.
  const started = await holds.start(async (isDead) =>
    location ? replayJournals(database.db, location.directory, location.claim, isDead) : [],
  );
  const released = started + (await releaseExpiredHolds(database.db));
  if (released > 0) log.warn("released holds left by an earlier process", { released });
  // Leases journal their settlements here; streams on hold rows (x402) their running counts.
  const journal = settlementJournal(env, database, location);
  // Streams journal running counts metered with the tokenizer: loaded before serving, not under load.
  if (location) await preloadTokenizer();
  const leases =
    env.BALANCE_LEASE === "on"
      ? new BalanceLeases({
          database: database.db,
          holds,
          journal,
          ttlSeconds: env.HOLD_TTL_SECONDS,
          idleMs: env.BALANCE_LEASE_IDLE_MS,
          writeDelayMs: env.BALANCE_LEASE_WRITE_DELAY_MS,
          // On either journal: waiting for the file's line cost a PGlite answer 0.065 to 0.41 ms at concurrency 1.
          journalWindow: {
            answers: env.BILLING_JOURNAL_WINDOW,
            microunits: env.BILLING_JOURNAL_WINDOW_MICROUNITS,
          },
        })
      : undefined;

  const limiters = await createLimiterFactory(env.REDIS_URL, env.REDIS_NAMESPACE);

  let stopMaintenance: (() => void) | undefined;
  const catalogStore = new CatalogStore(database.db);
  const catalog = await catalogStore.reload();
  const signals = await shareReplicaSignals(env, database.db, catalogStore, holds.instanceId);
  const routing = createRoutingState(env, holds.instanceId);
  const app: AppContext = {
    env,
    database,
    holds,
    leases,
    journal,
    keyLimits: new KeySpendLimits({
      database: database.db,
      refreshMs: keyLimitRefreshMs,
      claimWaitMs: env.KEY_CLAIM_WAIT_MS,
    }),
    balanceWatch: new BalanceWatcher({
      database: database.db,
      leases,
      card: () => cardSettings(env),
      allowPrivateUrls: env.BALANCE_ALERT_ALLOW_PRIVATE_URLS,
    }),
    catalog,
    catalogStore,
    upstreams,
    routing,
    trustFindings: new TrustFindingRecorder({ database: database.db, reputation: routing.reputation }),
    registerLimiter: limiters.perMinute(env.REGISTER_RATE_LIMIT_PER_MINUTE, "register"),
    x402PaymentLimiter: limiters.perMinute(env.X402_PAYMENT_RATE_LIMIT_PER_MINUTE, "x402-payment"),
    x402QuoteLimiter: limiters.perMinute(env.X402_QUOTE_RATE_LIMIT_PER_MINUTE, "x402-quote"),
    countTokensLimiter: limiters.perMinute(env.COUNT_TOKENS_RATE_LIMIT_PER_MINUTE, "count-tokens"),
    payoutRail: payoutRailLoader(env),
    baseDeposits: baseDepositsLoader(env),
    x402: createX402Wiring(env, database.db),
    receipts: await loadReceiptIssuer(env, database.db),
    usageRecords: loadUsageRecords(env),
    responseCache: createResponseCache(env),
    pendingResponses: new PendingResponseStores(),
    async close() {
      stopMaintenance?.();
      catalogStore.stop();
      await app.trustFindings.idle();
      // Answers already out name these responses: written before the database closes.
      await app.pendingResponses.idle();
      await app.routing.registry.close();
      await limiters.close();
      await signals?.close();
      await app.responseCache?.close();
      await app.usageRecords?.close();
      await stopTracing?.();
      // Stopping leases closes the journal they share.
      if (leases) await leases.stop();
      else journal.close();
      // After the leases' last batches: the receipts those could not store are queued here.
      await app.receipts?.store.flush();
      await holds.stop((leases?.unwritten ?? 0) > 0);
      await database.close();
    },
  };
  await refreshReputations(app.routing.reputation, database.db);
  catalogStore.installInto((index) => {
    app.catalog = index;
  });
  if (options.sweeper !== false) {
    stopMaintenance = startMaintenance(app);
    catalogStore.startPolling(catalogPollMs);
  }
  return app;
}

/**
 * Replicas sharing a Redis tell each other when a key or the catalog changes, so a revoked key
 * is refused and an edited price charged on every replica from its next request, rather than
 * when each one's cached copy expires.
 */
async function shareReplicaSignals(
  env: Env,
  database: Database,
  catalogStore: CatalogStore,
  replicaId: string,
): Promise<ReplicaSignals | undefined> {
  if (!env.REDIS_URL) return undefined;
  const signals = await connectReplicaSignals({
    url: env.REDIS_URL,
    namespace: env.REDIS_NAMESPACE,
    replicaId,
    onSignal: (signal) => {
      if (signal.type === "credential") forgetHere(database, signal.hash);
      else catalogStore.heardChange();
    },
  });
  shareCredentialChanges(database, (hash) => signals.publish({ type: "credential", hash }));
  catalogStore.shareChanges(() => signals.publish({ type: "catalog" }));
  return signals;
}

/**
 * On a shared database the journal is shared too, so a surviving replica bills what a dead one
 * served; a database that dies with the process needs none.
 */
function settlementJournal(
  env: Env,
  database: DatabaseHandle,
  location: JournalLocation | undefined,
): Journal {
  if (!location) return new VolatileJournal();
  const { directory, claim } = location;
  const file = new SettlementJournal(directory, claim.ownInstanceId, claim.databaseId);
  const shared =
    env.BILLING_JOURNAL === "database" || (env.BILLING_JOURNAL === "auto" && database.kind === "postgres");
  return shared ? new DatabaseJournal(database.db, claim.ownInstanceId, file) : file;
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
