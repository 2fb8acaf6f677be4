import { inject } from "vitest";
import { type AppContext, createAppContext } from "../../compose-app";
import { loadEnv } from "../../lib/env";
import { getAccountBalance } from "../../lib/ledger/accounts";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { InMemoryMarketplaceRegistry } from "../../lib/marketplace/in-memory-registry";
import type { PageHost } from "../../lib/pages/page-host";
import { type HealthThresholds, HealthTracker } from "../../lib/routing/health-tracker";
import { findToken } from "../../lib/tokens/find-token";
import { startGatewayServer } from "../../server";
import { type FakeUpstream, startFakeUpstream } from "./fake-upstream";
import { createTestDatabase } from "./test-database";

export const testAdminToken = "test-admin-token";
/** Seals relay keys in tests; any 32 bytes will do. */
const testEncryptionKey = "7f".repeat(32);

/** Centralized kinds that can get a fake server of their own (no key: reachable only by key relays). */
type ExtraUpstreamName = "together" | "groq" | "venice";

export interface TestGateway {
  baseUrl: string;
  app: AppContext;
  /** Fake OpenAI (first for OpenAI models), fake OpenRouter (second), fake Anthropic. */
  openai: FakeUpstream;
  openrouter: FakeUpstream;
  anthropic: FakeUpstream;
  /** Fakes started for `extraUpstreams`, named `fake-<name>`. */
  extraUpstreams: Partial<Record<ExtraUpstreamName, FakeUpstream>>;
  /** The marketplace supply routing sees; connect agent doubles to it. */
  marketplace: InMemoryMarketplaceRegistry;
  register(): Promise<{ token: string; depositCode: string }>;
  credit(token: string, amount: bigint): Promise<void>;
  createFundedToken(amount: bigint): Promise<string>;
  balanceOf(token: string): Promise<{ balance: bigint; held: bigint; available: bigint }>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  env?: Record<string, string>;
  /** Serve Next pages too (needs a build); API-only by default. */
  withNext?: boolean;
  /** Serve pages from this host instead (tests of the page build and its "building" answer). */
  pages?: PageHost;
  /**
   * Extra OpenAI-format fakes whose `<NAME>_BASE_URL` is set without a key: not centralized
   * sources, but where key relays of that kind are sent, so relays can fail independently.
   */
  extraUpstreams?: ExtraUpstreamName[];
  /** Health thresholds for demotion (defaults: lib/routing/health-tracker.ts). */
  health?: Partial<HealthThresholds>;
  /** Hold and settle against balance leases, as `npm start` does (off by default; see BALANCE_LEASE). */
  lease?: boolean;
  /** On in-memory PGlite even where TEST_DATABASE_URL is set (the path a newcomer's `npm test` runs). */
  inMemory?: boolean;
  /** Run the maintenance loop and deposit watcher as `npm start` does (off by default: tests drive them). */
  maintenance?: boolean;
}

/** A real gateway on 127.0.0.1 with its own database and fake upstreams, for tests and docs examples. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const [openai, openrouter, anthropic, database] = await Promise.all([
    startFakeUpstream("openai", "fake-openai"),
    startFakeUpstream("openai", "fake-openrouter"),
    startFakeUpstream("anthropic", "fake-anthropic"),
    createTestDatabase({ memory: options.inMemory ?? false }),
  ]);
  const extraUpstreams: Partial<Record<ExtraUpstreamName, FakeUpstream>> = {};
  for (const name of options.extraUpstreams ?? [])
    extraUpstreams[name] = await startFakeUpstream("openai", `fake-${name}`);
  const extraEnv: Record<string, string> = {};
  for (const [name, fake] of Object.entries(extraUpstreams))
    extraEnv[`${name.toUpperCase()}_BASE_URL`] = fake.baseUrl;
  const env = loadEnv({
    NODE_ENV: "test",
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    ADMIN_TOKEN: testAdminToken,
    POD_DATA_DIR: database.dataDir,
    PGLITE_MEMORY_TEMPLATE: inject("pgliteTemplate"),
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    OPENAI_API_KEY: "sk-test-openai",
    OPENAI_BASE_URL: openai.baseUrl,
    OPENROUTER_API_KEY: "sk-test-openrouter",
    OPENROUTER_BASE_URL: openrouter.baseUrl,
    ANTHROPIC_API_KEY: "sk-test-anthropic",
    ANTHROPIC_BASE_URL: anthropic.baseUrl,
    REGISTER_RATE_LIMIT_PER_MINUTE: "1000",
    X402_PAYMENT_RATE_LIMIT_PER_MINUTE: "1000",
    POD_ENCRYPTION_KEY: testEncryptionKey,
    // Most tests read holds and balances straight from the database right after a response;
    // with leases on, those settle into the database a few milliseconds later (tests opt in).
    BALANCE_LEASE: options.lease ? "on" : "off",
    // Answer checks send the fake upstream scoring requests after a share of marketplace jobs:
    // tests that count upstream requests would see them at random (tests opt in).
    VERIFY_SHARE: "0",
    ...extraEnv,
    ...options.env,
  });
  const app = await createAppContext({ env, sweeper: options.maintenance ?? false });
  const marketplace = new InMemoryMarketplaceRegistry({
    heartbeatTimeoutMs: env.PROVIDER_HEARTBEAT_TIMEOUT_MS,
  });
  // Tests connect agent doubles to an in-memory registry; a shared one (REDIS_URL) leaves the bus first.
  await app.routing.registry.close();
  app.routing = { ...app.routing, registry: marketplace, health: new HealthTracker(options.health) };
  const gateway = await startGatewayServer({
    app,
    port: 0,
    host: "127.0.0.1",
    withNext: options.withNext ?? false,
    ...(options.pages ? { pages: options.pages } : {}),
  });
  const baseUrl = gateway.url;

  const register = async () => {
    const response = await fetch(`${baseUrl}/v1/register`, { method: "POST" });
    if (!response.ok) throw new Error(`register failed: ${response.status}`);
    const body = (await response.json()) as { api_token: string; deposit_code: string };
    return { token: body.api_token, depositCode: body.deposit_code };
  };
  const credit = async (token: string, amount: bigint) => {
    const response = await fetch(`${baseUrl}/v1/admin/credits`, {
      method: "POST",
      headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        api_token: token,
        amount_microunits: amount.toString(),
        reason: "test funding",
      }),
    });
    if (!response.ok) throw new Error(`credit failed: ${response.status} ${await response.text()}`);
  };
  return {
    baseUrl,
    app,
    openai,
    openrouter,
    anthropic,
    extraUpstreams,
    marketplace,
    register,
    credit,
    async createFundedToken(amount) {
      const { token } = await register();
      await credit(token, amount);
      return token;
    },
    async balanceOf(token) {
      const record = await findToken(app.database.db, token);
      if (!record) throw new Error("unknown token");
      return getAccountBalance(app.database.db, record.accountId);
    },
    async close() {
      // Every suite ends by proving the books: entries, balances and holds agree.
      const problems = await verifyLedger(app.database.db);
      await gateway.close();
      await Promise.all([
        openai.close(),
        openrouter.close(),
        anthropic.close(),
        ...Object.values(extraUpstreams).map((fake) => fake.close()),
      ]);
      await database.drop();
      if (problems.length > 0) throw new Error(`ledger check failed: ${JSON.stringify(problems)}`);
    },
  };
}
