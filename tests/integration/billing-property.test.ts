import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../lib/db/client";
import { usageRecords } from "../../lib/db/schema";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { costOfUsage, type TokenPrice } from "../../lib/pricing/cost";
import { estimateFactor } from "../../lib/usage/meter-usage";
import { countTokens } from "../../lib/usage/tokenizer";
import { promptTokensOf, type RecordedRequest } from "../helpers/fake-upstream";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { accountBalance } from "../helpers/ledger-accounts";
import { seededRandom } from "../helpers/seeded-random";

/**
 * Property: whatever mix of requests hits a small balance (both dialects, streamed or not,
 * `n`, either or both limit fields, client aborts, upstream cuts, stalls, paused readers),
 * no account goes below zero, every request is charged min(its usage x price, what the
 * balance could cover) with the rest in the loss account, and the ledger verifies.
 * Bounded: a fixed number of rounds of a fixed number of concurrent requests, seeded.
 */
const rounds = 3;
const perRound = 10;
const seed = Number(process.env.BILLING_PROPERTY_SEED ?? Date.now() % 100_000);

const prices: Record<string, TokenPrice> = {
  openai: { inputPer1m: 150_000n, outputPer1m: 600_000n, cacheReadPer1m: 75_000n, cacheWritePer1m: 150_000n },
  anthropic: {
    inputPer1m: 1_000_000n,
    outputPer1m: 5_000_000n,
    cacheReadPer1m: 100_000n,
    cacheWritePer1m: 1_250_000n,
  },
};

type Behaviour = "normal" | "abort" | "cut" | "stall" | "paused";

interface Plan {
  marker: string;
  dialect: "openai" | "anthropic";
  stream: boolean;
  choices: number;
  tokens: number;
  behaviour: Behaviour;
  limits: Record<string, number>;
}

interface Outcome {
  plan: Plan;
  status: number;
  requestId: string;
}

let gateway: TestGateway;

function planRequest(random: () => number, marker: string): Plan {
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)] as T;
  const dialect = pick(["openai", "anthropic"] as const);
  const stream = random() < 0.6;
  const behaviour: Behaviour = stream
    ? pick(["normal", "abort", "cut", "stall", "paused"])
    : pick(["normal", "stall"]);
  const limitKind = pick(["none", "max_tokens", "max_completion_tokens", "both"] as const);
  const limit = 1 + Math.floor(random() * 80);
  const limits: Record<string, number> =
    dialect === "anthropic" || limitKind === "max_tokens"
      ? { max_tokens: limit }
      : limitKind === "max_completion_tokens"
        ? { max_completion_tokens: limit }
        : limitKind === "both"
          ? { max_tokens: 1 + Math.floor(random() * 80), max_completion_tokens: limit }
          : {};
  return {
    marker,
    dialect,
    stream,
    choices: dialect === "openai" && random() < 0.3 ? 2 + Math.floor(random() * 3) : 1,
    tokens: 1 + Math.floor(random() * 60),
    behaviour,
    limits,
  };
}

async function send(plan: Plan, token: string): Promise<Outcome> {
  const directives = [`[fake:tokens=${plan.tokens}]`];
  if (plan.behaviour === "cut") directives.push(`[fake:cut=${Math.max(1, Math.floor(plan.tokens / 2))}]`);
  // Silence longer than UPSTREAM_TIMEOUT_MS before the first token: the gateway gives up.
  if (plan.behaviour === "stall") directives.push("[fake:slow=1600]");
  const content = `property ${plan.marker} ${directives.join(" ")}`;
  const body: Record<string, unknown> = {
    model: plan.dialect === "openai" ? "gpt-4o-mini" : "claude-haiku-4-5",
    messages: [{ role: "user", content }],
    stream: plan.stream,
    ...plan.limits,
    ...(plan.choices > 1 ? { n: plan.choices } : {}),
  };
  const controller = new AbortController();
  const path = plan.dialect === "openai" ? "v1/chat/completions" : "v1/messages";
  const response = await fetch(`${gateway.baseUrl}/proxy/${token}/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const requestId = response.headers.get("x-request-id") ?? response.headers.get("request-id") ?? "";
  try {
    if (plan.behaviour === "abort" && response.body) {
      const reader = response.body.getReader();
      await reader.read();
      controller.abort();
    } else {
      if (plan.behaviour === "paused") await new Promise((resolve) => setTimeout(resolve, 400));
      await response.text();
    }
  } catch {
    // an aborted or cut stream may reject; the books are checked below
  }
  return { plan, status: response.status, requestId };
}

/** The fake's own record of the request: what it really generated and would bill. */
function upstreamRecord(plan: Plan): RecordedRequest | undefined {
  const fake = plan.dialect === "openai" ? gateway.openai : gateway.anthropic;
  return fake.requests.find((request) => JSON.stringify(request.body.messages).includes(plan.marker));
}

// Both ways a process holds and settles: a statement per request, and balance leases (the default).
describe.each([
  { lease: false, mode: "one statement per hold and settlement" },
  { lease: true, mode: "balance leases, settlements written in batches" },
])(`billing property (seed ${seed}): $mode`, ({ lease }) => {
  beforeAll(async () => {
    gateway = await startTestGateway({
      lease,
      env: { UPSTREAM_TIMEOUT_MS: "1000", STREAM_WRITE_TIMEOUT_MS: "2000", BALANCE_LEASE_IDLE_MS: "100" },
    });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("no account below zero; charged = min(usage x price, coverable); shortfalls in the loss account; ledger verified", async () => {
    const random = seededRandom(seed);
    const outcomes: Outcome[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const balance = BigInt(3_000 + Math.floor(random() * 40_000));
      const token = await gateway.createFundedToken(balance);
      const plans = Array.from({ length: perRound }, (_, index) =>
        planRequest(random, `m${seed}-${round}-${index}`),
      );
      outcomes.push(...(await Promise.all(plans.map((plan) => send(plan, token)))));
      await expect.poll(async () => (await gateway.balanceOf(token)).held, { timeout: 15_000 }).toBe(0n);
      const after = await gateway.balanceOf(token);
      expect(after.balance >= 0n).toBe(true);
      expect(after.balance <= balance).toBe(true);
    }

    let shortfallTotal = 0n;
    for (const { plan, status, requestId } of outcomes) {
      const context = JSON.stringify({ seed, plan, status });
      const upstream = upstreamRecord(plan);
      const [record] = await gateway.app.database.db
        .select()
        .from(usageRecords)
        .where(eq(usageRecords.requestId, requestId));
      if (status === 402 || status === 400) {
        // Refused before the upstream: nothing forwarded, nothing charged.
        expect(upstream, context).toBeUndefined();
        expect(record, context).toBeUndefined();
        continue;
      }
      if (!record) {
        // A failed request (e.g. 504 on a non-streamed stall) charges nothing.
        expect(status === 200, context).toBe(false);
        continue;
      }
      const [txn] = await queryRows<{ shortfall: string | null }>(
        gateway.app.database.db,
        sql`SELECT metadata->>'shortfall' AS shortfall FROM ledger_transactions WHERE idempotency_key = ${`inference:${requestId}`}`,
      );
      const shortfall = BigInt(txn?.shortfall ?? "0");
      shortfallTotal += shortfall;
      const usage = {
        inputTokens: record.inputTokens,
        outputTokens: record.outputTokens,
        cacheReadTokens: record.cacheReadTokens,
        cacheWriteTokens: record.cacheWriteTokens,
      };
      const price = prices[plan.dialect] as TokenPrice;
      // The charge plus the written-off part is exactly the recorded usage at the route's price.
      expect(record.costMicrounits + shortfall, context).toBe(costOfUsage(usage, price));
      expect(upstream, context).toBeDefined();
      if (!upstream) continue;
      // Only one output limit was forwarded, and the upstream honoured it.
      const limitFields = ["max_tokens", "max_completion_tokens"].filter((field) => field in upstream.body);
      expect(limitFields, context).toHaveLength(1);
      const forwardedLimit = upstream.body[limitFields[0] as string] as number;
      const generated = Math.max(1, Math.min(plan.tokens, forwardedLimit));
      const trueInput = promptTokensOf(upstream.body);
      if (record.outcome === "completed") {
        // The upstream reported its usage: the gateway billed exactly that.
        expect(record.inputTokens, context).toBe(trueInput);
        expect(record.outputTokens, context).toBe(generated * plan.choices);
      } else if (plan.dialect === "anthropic") {
        // message_start told the input; the output is the gateway's count of what was relayed
        // (Claude's tokenizer ships nowhere: o200k scaled up), never past the forwarded limit.
        expect(record.inputTokens, context).toBe(trueInput);
        if (plan.behaviour === "cut") {
          const words = Math.min(generated, Math.max(1, Math.floor(plan.tokens / 2)));
          const relayed = Array.from({ length: words }, (_, index) => (index === 0 ? "Hello" : ` w${index}`));
          expect(record.outputTokens, context).toBe(
            Math.min(forwardedLimit, Math.ceil((await countTokens(relayed.join(""))) * estimateFactor)),
          );
        }
      } else {
        // No usage from the upstream: the input estimate is never below the truth.
        expect(record.inputTokens, context).toBeGreaterThanOrEqual(trueInput);
      }
    }
    expect(-(await accountBalance(gateway, "external", "inference-loss"))).toBe(shortfallTotal);
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  }, 240_000);
});
