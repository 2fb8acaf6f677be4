import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../lib/db/client";
import { placeHold, releaseExpiredHolds } from "../../lib/ledger/holds";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { runMaintenance } from "../../lib/maintenance";
import { findToken } from "../../lib/tokens/find-token";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

async function streamOnce(token: string, index: number): Promise<number> {
  const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "gpt-4o-mini",
      max_tokens: 40,
      stream: true,
      messages: [{ role: "user", content: `request ${index} [fake:tokens=30] [fake:slow=2]` }],
    }),
  });
  await response.text();
  return response.status;
}

describe("ledger under concurrency", () => {
  it("many concurrent streams against a small balance never overdraw it, and debits equal usage times price", async () => {
    const token = await gateway.createFundedToken(700n);
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, index) => streamOnce(token, index)));
    expect(statuses.every((status) => status === 200 || status === 402)).toBe(true);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0);

    const balance = await gateway.balanceOf(token);
    expect(balance.held).toBe(0n);
    expect(balance.balance >= 0n).toBe(true);

    const record = await findToken(gateway.app.database.db, token);
    if (!record) throw new Error("token missing");
    const usage = await queryRows<{
      input_tokens: number;
      output_tokens: number;
      cache_read_tokens: number;
      cost: string;
    }>(
      gateway.app.database.db,
      sql`SELECT input_tokens, output_tokens, cache_read_tokens, cost_microunits::text AS cost FROM usage_records WHERE account_id = ${record.accountId}`,
    );
    // gpt-4o-mini on the first provider: 150,000 in, 600,000 out, 75,000 cached per 1M; each request rounds up.
    const expected = usage.reduce(
      (total, row) =>
        total +
        (BigInt(row.input_tokens) * 150_000n +
          BigInt(row.output_tokens) * 600_000n +
          BigInt(row.cache_read_tokens) * 75_000n +
          999_999n) /
          1_000_000n,
      0n,
    );
    const debits = await queryRows<{ total: string | null }>(
      gateway.app.database.db,
      sql`SELECT SUM(-amount)::text AS total FROM ledger_entries WHERE account_id = ${record.accountId} AND amount < 0`,
    );
    expect(usage.length).toBe(statuses.filter((status) => status === 200).length);
    expect(BigInt(debits[0]?.total ?? "0")).toBe(expected);
    expect(700n - balance.balance).toBe(expected);
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  });

  it("bounds the upstream max_tokens to what the balance covers instead of overdrawing", async () => {
    const token = await gateway.createFundedToken(100n);
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        max_tokens: 100_000,
        messages: [{ role: "user", content: "hi [fake:tokens=100000]" }],
      }),
    });
    expect(response.status).toBe(200);
    const sent = gateway.openai.requests.at(-1)?.body.max_tokens as number;
    expect(sent).toBeLessThan(100_000);
    expect(sent).toBeGreaterThan(0);
    const balance = await gateway.balanceOf(token);
    expect(balance.balance >= 0n).toBe(true);
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  });

  it("the sweeper releases holds a crashed process left behind", async () => {
    const token = await gateway.createFundedToken(5_000n);
    const record = await findToken(gateway.app.database.db, token);
    if (!record) throw new Error("token missing");
    const hold = await placeHold(gateway.app.database.db, record.accountId, 4_000n, 1);
    expect(hold.type).toBe("held");
    expect((await gateway.balanceOf(token)).available).toBe(1_000n);
    const released = await releaseExpiredHolds(gateway.app.database.db, new Date(Date.now() + 5_000));
    expect(released).toBeGreaterThanOrEqual(1);
    expect(await gateway.balanceOf(token)).toEqual({ balance: 5_000n, held: 0n, available: 5_000n });
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  });

  it("the maintenance loop runs the same sweep", async () => {
    const token = await gateway.createFundedToken(2_000n);
    const record = await findToken(gateway.app.database.db, token);
    if (!record) throw new Error("token missing");
    expect((await placeHold(gateway.app.database.db, record.accountId, 1_500n, 0)).type).toBe("held");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await runMaintenance(gateway.app);
    expect(await gateway.balanceOf(token)).toEqual({ balance: 2_000n, held: 0n, available: 2_000n });
  });
});
