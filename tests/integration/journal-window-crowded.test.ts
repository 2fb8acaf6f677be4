import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../lib/db/client";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { inferenceClient } from "../helpers/inference-client";

/**
 * A ledger batch waits `BALANCE_LEASE_WRITE_DELAY_MS` for company, unless the answers sent straight
 * to it (the journal window) already take half the window, in answers or in money: then it goes
 * at once, since past the window answers would wait for journal rows instead. Shown without a
 * clock: two answers one after the other, under a delay of a second, share one batch (one
 * database transaction: the same xmin on both usage records) when the first waits for company,
 * and are written by two when it went at once.
 */
const started: TestGateway[] = [];
afterAll(async () => {
  await Promise.all(started.map((gateway) => gateway.close()));
});

async function gatewayWith(window: { count: string; microunits: string }): Promise<TestGateway> {
  const gateway = await startTestGateway({
    lease: true,
    env: {
      BALANCE_LEASE_WRITE_DELAY_MS: "1000",
      BILLING_JOURNAL_WINDOW: window.count,
      BILLING_JOURNAL_WINDOW_MICROUNITS: window.microunits,
    },
  });
  started.push(gateway);
  return gateway;
}

/** Two answers, the second sent once the first is read; their request ids and what one cost. */
async function twoAnswers(gateway: TestGateway): Promise<{ ids: string[]; cost: bigint }> {
  const token = await gateway.createFundedToken(1_000_000n);
  const ids: string[] = [];
  let cost = 0n;
  for (const index of [1, 2]) {
    const response = await inferenceClient(gateway, token).chat({
      maxTokens: 40,
      content: `crowded window ${index} [fake:tokens=30]`,
    });
    expect(response.status).toBe(200);
    await response.text();
    ids.push(response.headers.get("x-request-id") ?? "");
    cost = BigInt(response.headers.get("x-pod-cost-microunits") ?? "0");
  }
  return { ids, cost };
}

/** How many database transactions wrote these usage records, once all of them are written. */
async function batchesOf(gateway: TestGateway, ids: string[]): Promise<number> {
  const written = async () =>
    (
      await queryRows<{ n: number; batches: number }>(
        gateway.app.database.db,
        sql`SELECT COUNT(*)::int AS n, COUNT(DISTINCT xmin::text)::int AS batches
            FROM usage_records WHERE request_id IN ${ids}`,
      )
    )[0] ?? { n: 0, batches: 0 };
  await expect.poll(async () => (await written()).n, { timeout: 10_000 }).toBe(ids.length);
  return (await written()).batches;
}

describe("a ledger batch and its journal window", () => {
  // A window with room to spare, whose answers also tell the others what one answer costs: each
  // test below runs alone as well as after this.
  let roomy: TestGateway;
  let roomyAnswers: { ids: string[]; cost: bigint };
  beforeAll(async () => {
    roomy = await gatewayWith({ count: "512", microunits: "1000000" });
    roomyAnswers = await twoAnswers(roomy);
  });

  it("with room to spare, a settlement waits for company: two answers in a row share one batch", async () => {
    expect(roomyAnswers.cost).toBeGreaterThan(1n);
    expect(await batchesOf(roomy, roomyAnswers.ids)).toBe(1);
  });

  it("an answer that takes half the window's money goes to the ledger at once: the next one is another batch", async () => {
    // One answer fits the bound (so it goes out unjournaled), and two do not.
    const { cost } = roomyAnswers;
    const gateway = await gatewayWith({ count: "512", microunits: String(cost + cost / 2n) });
    const answered = await twoAnswers(gateway);
    expect(answered.cost).toBe(cost);
    expect(await batchesOf(gateway, answered.ids)).toBe(2);
  });

  it("an answer that takes half the window's count goes to the ledger at once: the next one is another batch", async () => {
    const gateway = await gatewayWith({ count: "2", microunits: "1000000" });
    const answered = await twoAnswers(gateway);
    expect(await batchesOf(gateway, answered.ids)).toBe(2);
  });
});
