import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAppContext } from "../../compose-app";
import { SOLANA_DEVNET_CAIP2 } from "../../lib/chains/solana/constants";
import { type DatabaseHandle, openDatabase, queryRows } from "../../lib/db/client";
import { loadEnv } from "../../lib/env";
import { collectOpenReceivables } from "../../lib/ledger/receivables";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { reconcile } from "../../lib/reconcile/reconcile";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream";
import { inferenceClient } from "../helpers/inference-client";
import { seededRandom } from "../helpers/seeded-random";
import { testSharedPostgres } from "../helpers/services";
import { type FakeStripe, startFakeStripe } from "../helpers/stripe/fake-stripe";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { startX402Chain, type X402Chain } from "../helpers/x402-chain";
import { chatBody } from "../helpers/x402-gateway";
import { type GatewayProcess, startGatewayProcess } from "../helpers/x402-gateway-process";

/**
 * The money soak with crashes: two replica processes on one Postgres (balance leases on, each
 * with its own journal directory), card top-ups, refunds and disputes through Stripe's signed
 * webhooks, operator credits, x402 payments on a local Solana chain, bursts of plain and
 * streamed requests, and kill -9 of a replica in the middle of a burst, restarted on its own
 * journal. It ends with every answered request billed (once: the usage table is keyed by
 * request id), nothing left held, and the ledger, Stripe and the chain reconciled to zero
 * unexplained microunits. Bounded: SOAK_STEPS steps (30 by default), seed SOAK_SEED (27).
 */
const postgresUrl = testSharedPostgres("The money soak with crashes").url;
const seed = Number(process.env.SOAK_SEED ?? 27);
const steps = Math.min(Number(process.env.SOAK_STEPS ?? 30), 200);
const adminToken = "soak-admin-token";
const webhookSecret = "whsec_test_crash_soak";

interface Answer {
  id: string;
  status: number;
  complete: boolean;
}

interface Replica {
  env: Record<string, string>;
  process: GatewayProcess;
}

describe.skipIf(!postgresUrl)(`money soak with crashes (seed ${seed}, ${steps} steps)`, () => {
  let upstream: FakeUpstream;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let stripe: FakeStripe;
  let chain: X402Chain;
  const journals: string[] = [];
  const replicas: Replica[] = [];

  beforeAll(async () => {
    [upstream, database, stripe, chain] = await Promise.all([
      startFakeUpstream("openai", "fake-openai"),
      createTestDatabase(),
      startFakeStripe({ webhookSecret }),
      startX402Chain(),
    ]);
    handle = await openDatabase({ url: database.url });
    await handle.migrate(); // once up front, so replicas never race on the schema
  }, 120_000);

  afterAll(async () => {
    for (const replica of replicas) await replica.process.kill();
    await handle?.close();
    await Promise.all([upstream?.close(), stripe?.close(), chain?.close()]);
    await database?.drop();
    for (const directory of journals) rmSync(directory, { recursive: true, force: true });
  });

  function replicaEnv(): Record<string, string> {
    const journal = mkdtempSync(path.join(tmpdir(), "pod-soak-journal-"));
    journals.push(journal);
    return chain.gatewayEnv({
      DATABASE_URL: database.url ?? "",
      OPENAI_API_KEY: "sk-test-openai",
      OPENAI_BASE_URL: upstream.baseUrl,
      ADMIN_TOKEN: adminToken,
      REGISTER_RATE_LIMIT_PER_MINUTE: "1000",
      BALANCE_LEASE: "on",
      BALANCE_LEASE_IDLE_MS: "300",
      // Settlements wait half a second for company, so a crash finds some answered and unwritten.
      BALANCE_LEASE_WRITE_DELAY_MS: "500",
      BILLING_JOURNAL_DIR: journal,
      DEAD_INSTANCE_CHECK_SECONDS: "1",
      STRIPE_SECRET_KEY: "sk_test_crash_soak",
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_PUBLISHABLE_KEY: "pk_test_crash_soak",
      STRIPE_API_BASE: stripe.apiBase,
    });
  }

  /** A request read to its end, or to the crash that cut it; never throws. */
  async function ask(
    replica: GatewayProcess,
    token: string,
    label: string,
    stream: boolean,
    tokens: number,
  ): Promise<Answer> {
    let id = "";
    let status = 0;
    try {
      const response = await inferenceClient({ baseUrl: replica.url }, token).chat({
        stream,
        maxTokens: 200,
        content: `${label} [fake:tokens=${tokens}]${stream ? " [fake:slow=40]" : ""}`,
      });
      id = response.headers.get("x-request-id") ?? "";
      status = response.status;
      await response.text();
      return { id, status, complete: true };
    } catch {
      return { id, status, complete: false };
    }
  }

  it("funding, refunds, x402, spending and kill -9 of replicas end billed once and reconciled to zero", async () => {
    for (let index = 0; index < 2; index += 1) {
      const env = replicaEnv();
      replicas.push({ env, process: await startGatewayProcess(env) });
    }
    const next = seededRandom(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const live = () => pick(replicas).process;
    const webhooksTo = () => stripe.setWebhookUrl(`${live().url}/v1/webhooks/stripe`);

    const tokens: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const registered = (await (await fetch(`${live().url}/v1/register`, { method: "POST" })).json()) as {
        api_token: string;
      };
      tokens.push(registered.api_token);
    }
    const wallet = await chain.fundedWallet({ usdc: 50_000_000n });
    const client = new x402Client().register(
      SOLANA_DEVNET_CAIP2,
      new ExactSvmScheme(wallet, { rpcUrl: chain.solana.rpcUrl }),
    );
    const paidSessions: string[] = [];
    const answers: Answer[] = [];
    const counts: Record<string, number> = {};
    const deadline = Date.now() + 180_000;

    for (let step = 0; step < steps && Date.now() < deadline; step += 1) {
      const token = pick(tokens);
      const roll = next();
      const action =
        roll < 0.15
          ? "card"
          : roll < 0.23
            ? "refund"
            : roll < 0.28
              ? "dispute"
              : roll < 0.38
                ? "admin"
                : roll < 0.5
                  ? "x402"
                  : roll < 0.62
                    ? "crash"
                    : "spend";
      counts[action] = (counts[action] ?? 0) + 1;
      switch (action) {
        case "card": {
          webhooksTo();
          const response = await fetch(`${live().url}/proxy/${token}/fund/card`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ amount_usd: 5 + Math.floor(next() * 16) }),
          });
          expect(response.status).toBe(201);
          const { session_id: sessionId } = (await response.json()) as { session_id: string };
          expect((await stripe.complete(sessionId)).status).toBe(200);
          paidSessions.push(sessionId);
          break;
        }
        case "refund":
        case "dispute": {
          const sessionId = paidSessions.shift();
          if (!sessionId) break;
          webhooksTo();
          const total = stripe.sessions.get(sessionId)?.amount_total ?? 0;
          const delivery =
            action === "refund"
              ? await stripe.refund(sessionId, Math.max(1, Math.floor(total * next())))
              : await stripe.dispute(sessionId);
          expect(delivery.status).toBe(200);
          break;
        }
        case "admin": {
          const credited = await fetch(`${live().url}/v1/admin/credits`, {
            method: "POST",
            headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
            body: JSON.stringify({
              api_token: token,
              amount_microunits: String(1 + Math.floor(next() * 3_000_000)),
              reason: "soak",
            }),
          });
          expect(credited.status).toBe(200);
          break;
        }
        case "x402": {
          const pay = wrapFetchWithPayment(fetch, client);
          const response = await pay(`${live().url}/proxy/x402/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: chatBody(`x402 ${step} [fake:tokens=${1 + Math.floor(next() * 20)}]`),
          });
          expect(response.status).toBe(200);
          await response.text();
          answers.push({ id: response.headers.get("x-request-id") ?? "", status: 200, complete: true });
          break;
        }
        case "crash": {
          const victim = pick(replicas);
          const streams = [0, 1].map((index) => ask(victim.process, token, `cut ${step}.${index}`, true, 60));
          // Answered, and (with the write delay) not yet written when the process dies.
          const plain = await Promise.all(
            [2, 3].map((index) => ask(victim.process, token, `crash ${step}.${index}`, false, 10)),
          );
          await victim.process.kill();
          answers.push(...plain, ...(await Promise.all(streams)));
          // Back on its own journal: what it answered and never wrote is billed at this start.
          victim.process = await startGatewayProcess(victim.env);
          break;
        }
        default: {
          const burst = 1 + Math.floor(next() * 6);
          const results = await Promise.all(
            Array.from({ length: burst }, (_, index) =>
              ask(live(), token, `spend ${step}.${index}`, next() < 0.5, 1 + Math.floor(next() * 40)),
            ),
          );
          // Served, or refused because the token is empty or owes a refund: never anything else.
          for (const one of results) expect([200, 402]).toContain(one.status);
          answers.push(...results);
        }
      }
    }

    // Both replicas stop as an operator stops them (SIGTERM: leases go back, batches written).
    for (const replica of replicas) await replica.process.stop();
    const auditor = await createAppContext({
      env: loadEnv({ ...(replicas[0]?.env ?? {}), NODE_ENV: "test", LOG_LEVEL: "silent" }),
      sweeper: false,
    });
    try {
      await collectOpenReceivables(auditor.database.db);
      const billed = new Set(
        (await queryRows<{ request_id: string }>(handle.db, sql`SELECT request_id FROM usage_records`)).map(
          (row) => row.request_id,
        ),
      );
      const answered = answers.filter((one) => one.status === 200 && one.complete);
      expect(answered.length).toBeGreaterThan(5);
      for (const one of answered)
        expect(billed.has(one.id), `answered request ${one.id} is billed`).toBe(true);
      const held = await queryRows<{ held: string }>(
        handle.db,
        sql`SELECT COALESCE(SUM(held), 0)::text AS held FROM accounts`,
      );
      expect(held[0]?.held).toBe("0");
      expect(await verifyLedger(handle.db)).toEqual([]);
      const report = await reconcile(auditor);
      expect(report.checked).toEqual(expect.arrayContaining(["ledger", "stripe", "solana"]));
      expect(report.differences, `seed ${seed}, steps by kind ${JSON.stringify(counts)}`).toEqual([]);
      expect(counts.crash ?? 0).toBeGreaterThan(0);
      expect(counts.x402 ?? 0).toBeGreaterThan(0);
    } finally {
      await auditor.close();
    }
  }, 420_000);
});
