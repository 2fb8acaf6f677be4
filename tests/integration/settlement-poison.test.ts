import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../lib/db/client";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { findToken } from "../../lib/tokens/find-token";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { inferenceClient } from "../helpers/inference-client";
import { streamReceipt } from "../helpers/receipts";
import { installSettlementPoison, poisonRequest } from "../helpers/settlement-poison";

/**
 * One settlement the database refuses (a trigger raises for its request id, standing in for
 * any value or constraint it cannot take) must not stop the writer: it is quarantined with its
 * reason and its charge booked, and everything served before and after it is billed. Each
 * request's receipt is stored once: by its settlement's batch, or, for the quarantined one (whose
 * batch was refused), on its own.
 */
let gateway: TestGateway;

beforeAll(async () => {
  // Settlements wait a second for company, long enough to poison one before it is written.
  gateway = await startTestGateway({ lease: true, env: { BALANCE_LEASE_WRITE_DELAY_MS: "1000" } });
  await installSettlementPoison(gateway.app.database.db);
}, 60_000);
afterAll(async () => {
  await gateway?.close();
});

describe("a settlement the database refuses", () => {
  it("is quarantined and charged; the rest of its batch and everything after it is billed; reads never hang", async () => {
    const funded = 5_000_000n;
    const token = await gateway.createFundedToken(funded);
    const accountId = (await findToken(gateway.app.database.db, token))?.accountId ?? 0n;
    const client = inferenceClient(gateway, token);
    const ask = (index: number) =>
      client.chat({ content: `req ${index} [fake:tokens=8]`, maxTokens: 30, stream: index % 2 === 0 });
    const first = await Promise.all(Array.from({ length: 6 }, (_, index) => ask(index)));
    const ids = first.map((response) => response.headers.get("x-request-id") ?? "");
    /** Each request's receipt as its caller got it: the header, or a stream's last comment. */
    const receipts = new Map<string, string>();
    const read = async (response: Response) => {
      expect(response.status).toBe(200);
      const text = await response.text();
      receipts.set(
        response.headers.get("x-request-id") ?? "",
        response.headers.get("x-pod-receipt") ?? streamReceipt(text).jws,
      );
    };
    for (const response of first) await read(response);
    const poisoned = ids[3] ?? "";
    await poisonRequest(gateway.app.database.db, poisoned);

    // A read waits for the writer only so long, whatever the writer is doing.
    const started = Date.now();
    const balance = await fetch(`${gateway.baseUrl}/proxy/${token}/balance`);
    expect(balance.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(4_000);

    const after = await Promise.all(Array.from({ length: 6 }, (_, index) => ask(10 + index)));
    for (const response of after) await read(response);
    await gateway.app.leases?.flush(10_000);
    await gateway.app.receipts?.store.flush();

    const usage = await queryRows<{ request_id: string; cost: string }>(
      gateway.app.database.db,
      sql`SELECT request_id, cost_microunits::text AS cost FROM usage_records WHERE account_id = ${accountId}`,
    );
    expect(usage).toHaveLength(11);
    expect(usage.map((row) => row.request_id)).not.toContain(poisoned);
    const [quarantined] = await queryRows<{
      reason: string;
      charged: string;
      loss: string;
      settlement: Record<string, unknown>;
    }>(
      gateway.app.database.db,
      sql`SELECT reason, charged_microunits::text AS charged, loss_microunits::text AS loss, settlement
          FROM settlement_quarantine WHERE request_id = ${poisoned}`,
    );
    expect(quarantined?.reason).toMatch(/^22003: .*poisoned settlement/);
    // The record an operator reads is the settlement as written, not the in-memory receipt slot beside it.
    expect(quarantined?.settlement).toMatchObject({ requestId: poisoned });
    expect(quarantined?.settlement).not.toHaveProperty("receipt");
    // The balance covered it: the account paid, nothing went to the loss account.
    expect(BigInt(quarantined?.charged ?? "0")).toBeGreaterThan(0n);
    expect(quarantined?.loss).toBe("0");
    const charged =
      usage.reduce((total, row) => total + BigInt(row.cost), 0n) + BigInt(quarantined?.charged ?? "0");
    await gateway.app.leases?.returnAll();
    expect(await gateway.balanceOf(token)).toEqual({
      balance: funded - charged,
      held: 0n,
      available: funded - charged,
    });
    // The poisoned request is in the user's activity as an inference charge like any other.
    const [entry] = await queryRows<{ amount: string }>(
      gateway.app.database.db,
      sql`SELECT e.amount::text AS amount FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
          WHERE t.idempotency_key = ${`inference:${poisoned}`} AND e.account_id = ${accountId}`,
    );
    expect(entry?.amount).toBe(`-${quarantined?.charged}`);
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);

    // Every receipt stored once: the settlements waited a second for their batch, so the eleven
    // billed were stored by their batch's statement (the same transaction: the same created_at as
    // their usage records); the quarantined one, whose batch was refused, went on its own.
    const stored = await queryRows<{ request_id: string; jws: string; with_settlement: boolean }>(
      gateway.app.database.db,
      sql`SELECT r.request_id, r.jws, u.created_at IS NOT DISTINCT FROM r.created_at AS with_settlement
          FROM usage_receipts r LEFT JOIN usage_records u USING (request_id)
          WHERE r.account_id = ${accountId}`,
    );
    expect(stored).toHaveLength(12);
    expect(new Map(stored.map((row) => [row.request_id, row.jws]))).toEqual(receipts);
    expect(stored.filter((row) => !row.with_settlement).map((row) => row.request_id)).toEqual([poisoned]);
    for (const [requestId, jws] of receipts) {
      const fetched = await fetch(`${gateway.baseUrl}/proxy/${token}/receipts/${requestId}`);
      expect(await fetched.json()).toEqual({ request_id: requestId, receipt: jws });
    }
  }, 60_000);
});
