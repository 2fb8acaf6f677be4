import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../lib/db/client";
import { getAccountBalance } from "../../lib/ledger/accounts";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { findToken } from "../../lib/tokens/find-token";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { inferenceClient } from "../helpers/inference-client";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ lease: true, env: { BALANCE_LEASE_IDLE_MS: "200" } });
});
afterAll(async () => {
  await gateway.close();
});

/** A gpt-4o-mini call whose upstream answers 30 tokens, within a limit of 40. */
const ask = (token: string, index: number, stream: boolean) =>
  inferenceClient(gateway, token).chat({
    maxTokens: 40,
    stream,
    content: `request ${index} [fake:tokens=30]`,
  });

async function accountOf(token: string): Promise<bigint> {
  const record = await findToken(gateway.app.database.db, token);
  if (!record) throw new Error("token missing");
  return record.accountId;
}

/** What the usage records say the account owes: gpt-4o-mini at 150,000 in and 600,000 out per 1M, each request rounded up. */
async function usageCost(accountId: bigint): Promise<{ requests: number; cost: bigint }> {
  const rows = await queryRows<{ input_tokens: number; output_tokens: number; cost: string }>(
    gateway.app.database.db,
    sql`SELECT input_tokens, output_tokens, cost_microunits::text AS cost FROM usage_records WHERE account_id = ${accountId}`,
  );
  const cost = rows.reduce(
    (total, row) =>
      total +
      (BigInt(row.input_tokens) * 150_000n + BigInt(row.output_tokens) * 600_000n + 999_999n) / 1_000_000n,
    0n,
  );
  expect(rows.reduce((total, row) => total + BigInt(row.cost), 0n)).toBe(cost);
  return { requests: rows.length, cost };
}

describe("balance leases (BALANCE_LEASE=on, the npm start default)", () => {
  it("concurrent streamed and plain requests on a small balance never overdraw it; the ledger is exact once written", async () => {
    const token = await gateway.createFundedToken(900n);
    const accountId = await accountOf(token);
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, index) => ask(token, index, index % 2 === 0)),
    );
    const statuses = await Promise.all(
      responses.map(async (response) => {
        const text = await response.text();
        if (response.status !== 200 && response.status !== 402) console.log(response.status, text);
        return response.status;
      }),
    );
    expect(statuses.every((status) => status === 200 || status === 402)).toBe(true);
    const served = statuses.filter((status) => status === 200).length;
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThan(60);

    await gateway.app.leases?.returnAll();
    const stored = await getAccountBalance(gateway.app.database.db, accountId);
    expect(stored.held).toBe(0n);
    expect(stored.balance >= 0n).toBe(true);
    const usage = await usageCost(accountId);
    expect(usage.requests).toBe(served);
    expect(900n - stored.balance).toBe(usage.cost);
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  });

  it("a balance read right after a response shows its charge, and the lease's unused part as available", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await ask(token, 0, false);
    expect(response.status).toBe(200);
    await response.text();
    const cost = BigInt(response.headers.get("x-pod-cost-microunits") ?? "-1");
    expect(cost).toBeGreaterThan(0n);
    expect(BigInt(response.headers.get("x-balance-remaining") ?? "-1")).toBe(1_000_000n - cost);
    const balance = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/balance`)).json()) as {
      usdc_balance: number;
      held_balance: number;
    };
    expect(balance).toMatchObject({ usdc_balance: Number(1_000_000n - cost), held_balance: 0 });
    const history = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/transactions`)).json()) as {
      transactions: Array<{ kind: string; amount_microunits: number }>;
    };
    expect(history.transactions.find((row) => row.kind === "inference")?.amount_microunits).toBe(
      -Number(cost),
    );
  });

  it("an idle lease goes back to the balance by itself", async () => {
    const token = await gateway.createFundedToken(50_000n);
    const accountId = await accountOf(token);
    const response = await ask(token, 0, false);
    await response.text();
    const cost = BigInt(response.headers.get("x-pod-cost-microunits") ?? "0");
    await gateway.app.leases?.flush();
    const leased = await getAccountBalance(gateway.app.database.db, accountId);
    expect(leased.held).toBeGreaterThan(0n); // the lease, while it may still serve the next request
    const deadline = Date.now() + 5_000;
    let held = leased.held;
    while (held > 0n && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      held = (await getAccountBalance(gateway.app.database.db, accountId)).held;
    }
    expect(held).toBe(0n);
    expect((await getAccountBalance(gateway.app.database.db, accountId)).balance).toBe(50_000n - cost);
  });

  it("held shows what requests in flight reserve, never a lease: an idle account with leases shows nothing held", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const accountId = await accountOf(token);
    // Another replica's lease, as it stands in the database between its requests.
    await gateway.app.database.db.execute(
      sql`INSERT INTO holds (id, account_id, amount, expires_at) VALUES ('lease_other_replica', ${accountId}, 400000, now() + interval '1 hour')`,
    );
    await gateway.app.database.db.execute(
      sql`UPDATE accounts SET held = held + 400000 WHERE id = ${accountId}`,
    );
    const read = async () => {
      const balance = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/balance`)).json()) as {
        held_balance: number;
        usdc_balance: number;
      };
      const usage = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/usage`)).json()) as {
        held_microunits: number;
      };
      return {
        held: balance.held_balance,
        available: balance.usdc_balance,
        usageHeld: usage.held_microunits,
      };
    };
    expect(await read()).toEqual({ held: 0, available: 1_000_000, usageHeld: 0 });
    // A slow stream in flight: its own reservation (40 tokens out, at most) shows as held.
    const response = await inferenceClient(gateway, token).chat({
      maxTokens: 40,
      stream: true,
      content: "slow [fake:tokens=30] [fake:slow=40]",
    });
    const reader = response.body?.getReader();
    await reader?.read();
    const during = await read();
    expect(during.held).toBeGreaterThan(0);
    expect(during.held).toBeLessThan(100_000);
    expect(during.usageHeld).toBe(during.held);
    while (!(await reader?.read())?.done) {}
    await gateway.app.leases?.returnAll();
    expect((await read()).held).toBe(0);
    await gateway.app.database.db.execute(sql`DELETE FROM holds WHERE id = 'lease_other_replica'`);
    await gateway.app.database.db.execute(
      sql`UPDATE accounts SET held = held - 400000 WHERE id = ${accountId}`,
    );
  });
});
