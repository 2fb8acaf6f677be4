import { randomBytes } from "node:crypto";
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
import { testRedis, testSharedPostgres } from "../helpers/services";
import { type FakeStripe, startFakeStripe } from "../helpers/stripe/fake-stripe";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { startX402Chain, type X402Chain } from "../helpers/x402-chain";
import { chatBody } from "../helpers/x402-gateway";
import { type GatewayProcess, startGatewayProcess } from "../helpers/x402-gateway-process";

/**
 * The money soak with crashes: two replica processes on one Postgres (balance leases on, each
 * with its own journal directory), card top-ups, auto top-up charges, refunds and disputes of
 * both through Stripe's signed webhooks, operator credits, x402 payments on a local Solana
 * chain, bursts of plain and streamed requests, limited keys spent concurrently and revoked on
 * one replica (refused on the other), stored responses out of a sub-key's reach, price edits
 * on one replica applied by the other, and kill -9 of a replica in the middle of a burst,
 * restarted on its own journal. It ends with every answered request billed (once: the usage
 * table is keyed by request id) but at most the journal window of each killed replica's last
 * answers (answered before their journal rows committed, in the caller's favour), nothing left held, every auto top-up reversal clawed back,
 * and the ledger, Stripe (both ways, every credit against its record) and the chain reconciled
 * to zero unexplained microunits. Bounded: SOAK_STEPS steps (30 by default), seed SOAK_SEED (27).
 */
const postgresUrl = testSharedPostgres("The money soak with crashes").url;
/** Replicas share Redis as in production (revocations and price edits reach the other at once). */
const redisUrl = testRedis().url;
const redisNamespace = `soak-${randomBytes(4).toString("hex")}`;
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
      ...(redisUrl ? { REDIS_URL: redisUrl, REDIS_NAMESPACE: redisNamespace } : {}),
      STRIPE_SECRET_KEY: "sk_test_crash_soak",
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_PUBLISHABLE_KEY: "pk_test_crash_soak",
      STRIPE_API_BASE: stripe.apiBase,
    });
  }

  /** Which process served each answer: a killed one may leave some of its answers unbilled. */
  const servedBy = new Map<Answer, GatewayProcess>();
  function served(replica: GatewayProcess, answer: Answer): Answer {
    servedBy.set(answer, replica);
    return answer;
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
      return served(replica, { id, status, complete: true });
    } catch {
      return served(replica, { id, status, complete: false });
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
    /** Auto top-up charges (their payment intents) not reversed yet, and those reversed. */
    const topUps: string[] = [];
    const reversedTopUps: string[] = [];
    const autoTopUpOn = new Set<string>();
    const prologue = [
      "card",
      "autotopup",
      "spend",
      "autotopup",
      "topupreverse",
      "key",
      "price",
      "topupreverse",
    ];
    const answers: Answer[] = [];
    /** What each killed replica answered before its kill: the only answers that may go unbilled, at most the window per kill. */
    const beforeKills: Answer[][] = [];
    /** Limited keys made, each spent by a concurrent burst and then revoked. */
    const keys: string[] = [];
    const counts: Record<string, number> = {};
    const deadline = Date.now() + 180_000;

    for (let step = 0; step < steps && Date.now() < deadline; step += 1) {
      const token = pick(tokens);
      const roll = next();
      // Every kind once first (whatever the seed), then at random.
      const action =
        step < prologue.length
          ? (prologue[step] ?? "spend")
          : roll < 0.12
            ? "card"
            : roll < 0.18
              ? "refund"
              : roll < 0.22
                ? "dispute"
                : roll < 0.3
                  ? "admin"
                  : roll < 0.38
                    ? "x402"
                    : roll < 0.46
                      ? "crash"
                      : roll < 0.52
                        ? "autotopup"
                        : roll < 0.58
                          ? "topupreverse"
                          : roll < 0.66
                            ? "key"
                            : roll < 0.7
                              ? "price"
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
          const server = live();
          const response = await pay(`${server.url}/proxy/x402/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: chatBody(`x402 ${step} [fake:tokens=${1 + Math.floor(next() * 20)}]`),
          });
          expect(response.status).toBe(200);
          await response.text();
          answers.push(
            served(server, { id: response.headers.get("x-request-id") ?? "", status: 200, complete: true }),
          );
          break;
        }
        case "crash": {
          const victim = pick(replicas);
          const streams = [0, 1].map((index) => ask(victim.process, token, `cut ${step}.${index}`, true, 60));
          // Answered, and (with the write delay) not yet written when the process dies.
          const plain = await Promise.all(
            [2, 3].map((index) => ask(victim.process, token, `crash ${step}.${index}`, false, 10)),
          );
          const killed = victim.process;
          await killed.kill();
          const cut = await Promise.all(streams);
          answers.push(...plain, ...cut);
          // Any answer of the killed process may be among the at most BILLING_JOURNAL_WINDOW whose
          // settlements were on their way to the ledger (a batch gathers for its write delay),
          // not only the last ones.
          beforeKills.push(answers.filter((one) => servedBy.get(one) === killed));
          // Back on its own journal: what it answered and never wrote is billed at this start.
          victim.process = await startGatewayProcess(victim.env);
          break;
        }
        case "autotopup": {
          // A saved card and a threshold above the balance: the next charge makes the replica
          // that serves it charge the card off-session (the one the settings were saved on: another
          // reads them again within its cache's lifetime).
          const watcher = live();
          // Enabling below the threshold charges at once; a served request looks again.
          const before = new Set(stripe.paymentIntents.keys());
          if (!autoTopUpOn.has(token)) {
            webhooksTo();
            const setup = await fetch(`${watcher.url}/proxy/${token}/auto-top-up/card`, { method: "POST" });
            expect(setup.status).toBe(201);
            const { session_id: setupId } = (await setup.json()) as { session_id: string };
            expect((await stripe.complete(setupId)).status).toBe(200);
            const enabled = await fetch(`${watcher.url}/proxy/${token}/auto-top-up`, {
              method: "PUT",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                enabled: true,
                threshold_microunits: 90_000_000,
                amount_cents: 500,
                monthly_cap_cents: 100_000,
              }),
            });
            expect(enabled.status).toBe(200);
            autoTopUpOn.add(token);
          }
          // A served request is what lets the watch look (an operator credit makes sure it is served).
          const credited = await fetch(`${live().url}/v1/admin/credits`, {
            method: "POST",
            headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
            body: JSON.stringify({ api_token: token, amount_microunits: "2000000", reason: "soak top-up" }),
          });
          expect(credited.status).toBe(200);
          webhooksTo();
          answers.push(await ask(watcher, token, `top-up ${step}`, false, 5));
          const deadline = Date.now() + 10_000;
          while (Date.now() < deadline && [...stripe.paymentIntents.keys()].every((id) => before.has(id)))
            await new Promise((resolve) => setTimeout(resolve, 50));
          for (const [id, intent] of stripe.paymentIntents)
            if (!before.has(id) && intent.status === "succeeded") topUps.push(id);
          break;
        }
        case "topupreverse": {
          // The stolen-card pattern: an auto top-up charge refunded or charged back.
          const intent = topUps.shift();
          if (!intent) break;
          webhooksTo();
          const amount = stripe.paymentIntents.get(intent)?.amount ?? 0;
          const delivery =
            next() < 0.5
              ? await stripe.refund(intent, Math.max(1, Math.floor(amount * next())))
              : await stripe.dispute(intent);
          expect(delivery.status).toBe(200);
          reversedTopUps.push(intent);
          break;
        }
        case "key": {
          // A sub-key with a small daily limit, a burst on it, the account's stored response out of
          // its reach, then revoked on one replica and refused on the other.
          const limit = 3_000;
          const created = await fetch(`${live().url}/proxy/${token}/keys`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              label: `soak ${step}`,
              limit: { amount_microunits: limit, period: "day" },
            }),
          });
          expect(created.status).toBe(201);
          const { api_key: key, key: view } = (await created.json()) as {
            api_key: string;
            key: { id: string };
          };
          const burst = await Promise.all(
            Array.from({ length: 8 }, (_, index) =>
              ask(live(), key, `key ${step}.${index}`, index % 2 === 0, 5),
            ),
          );
          for (const one of burst) expect([200, 402]).toContain(one.status);
          answers.push(...burst);
          const stored = await fetch(`${live().url}/proxy/${token}/v1/responses`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              model: "gpt-4o-mini",
              input: `stored ${step} [fake:tokens=3]`,
              store: true,
            }),
          });
          if (stored.status === 200) {
            const { id } = (await stored.json()) as { id: string };
            const reached = await fetch(`${pick(replicas).process.url}/proxy/${key}/v1/responses/${id}`);
            expect(reached.status).toBe(404);
          } else expect(stored.status).toBe(402);
          const [first, second] = replicas.map((replica) => replica.process);
          if (!first || !second) break;
          const revoked = await fetch(`${first.url}/proxy/${token}/keys/${view.id}/revoke`, {
            method: "POST",
          });
          expect(revoked.status).toBe(200);
          const refusedBy = Date.now() + 5_000;
          let status = 0;
          while (Date.now() < refusedBy) {
            status = (await ask(second, key, `revoked ${step}`, false, 1)).status;
            if (status === 401) break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          expect(status).toBe(401);
          keys.push(view.id);
          break;
        }
        case "price": {
          // An operator's price edit on one replica applies to the next request on the other
          // (told through Redis; without it, on the same replica).
          const [first, other] = replicas.map((replica) => replica.process);
          const second = redisUrl ? other : first;
          if (!first || !second) break;
          const input = 100_000 + Math.floor(next() * 2_000_000);
          const output = 100_000 + Math.floor(next() * 4_000_000);
          const edited = await fetch(`${first.url}/v1/admin/catalog/models/gpt-4o-mini/prices/openai`, {
            method: "PUT",
            headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
            body: JSON.stringify({ input_per_1m: input, output_per_1m: output, actor: "soak" }),
          });
          expect(edited.status).toBe(200);
          const response = await fetch(`${second.url}/proxy/${token}/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              model: "gpt-4o-mini",
              max_tokens: 20,
              messages: [{ role: "user", content: `priced ${step} [fake:tokens=4]` }],
            }),
          });
          if (response.status !== 200) {
            expect(response.status).toBe(402);
            break;
          }
          const body = (await response.json()) as {
            usage: { prompt_tokens: number; completion_tokens: number };
          };
          answers.push(
            served(second, { id: response.headers.get("x-request-id") ?? "", status: 200, complete: true }),
          );
          expect(response.headers.get("x-pod-cost-microunits")).toBe(
            String(
              Math.ceil((body.usage.prompt_tokens * input + body.usage.completion_tokens * output) / 1e6),
            ),
          );
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
      const { BILLING_JOURNAL_WINDOW: window } = loadEnv({ ...(replicas[0]?.env ?? {}), NODE_ENV: "test" });
      const killedWith = (one: Answer) => beforeKills.findIndex((kill) => kill.includes(one));
      const unbilled = answered.filter((one) => !billed.has(one.id));
      for (const one of unbilled)
        expect(killedWith(one), `answered request ${one.id} is billed`).toBeGreaterThanOrEqual(0);
      for (const kill of beforeKills.keys())
        expect(unbilled.filter((one) => killedWith(one) === kill).length).toBeLessThanOrEqual(window);
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
      // Every auto top-up reversal was clawed back: a reversal booked against its charge (the
      // amounts are reconcile's, above, to the microunit).
      expect(reversedTopUps.length).toBeGreaterThan(0);
      for (const intent of reversedTopUps) {
        const [booked] = await queryRows<{ count: number }>(
          handle.db,
          sql`SELECT COUNT(*)::int AS count FROM ledger_transactions t JOIN auto_top_up_charges c
                ON c.id::text = t.metadata->>'stripe_auto_top_up_charge_id'
              WHERE c.payment_intent_id = ${intent} AND t.kind IN ('card_refund', 'card_dispute')`,
        );
        expect(booked?.count, `reversal of auto top-up ${intent} booked`).toBeGreaterThan(0);
      }
      // A limited key spent at most its limit plus one request's worst case (200 output tokens).
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const [spent] = await queryRows<{ total: string }>(
          handle.db,
          sql`SELECT COALESCE(SUM(cost_microunits), 0)::text AS total FROM usage_records WHERE api_key_id = ${key}::uuid`,
        );
        expect(BigInt(spent?.total ?? "0")).toBeLessThanOrEqual(3_000n + 5_000n);
      }
    } finally {
      await auditor.close();
    }
  }, 420_000);
});
