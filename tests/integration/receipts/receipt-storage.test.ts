import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { queryRows } from "../../../lib/db/client";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { streamReceipt } from "../../helpers/receipts";

/**
 * How a receipt is stored: by its settlement's batch statement when it is signed before that
 * batch is written (no statement of its own), on its own when the batch was written first.
 * Either way once, and found by its request id as soon as the caller has it.
 */
const gateways: TestGateway[] = [];
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
});

/** Sends requests one after another (every third streamed); each one's receipt as its caller got it. */
async function served(gateway: TestGateway, token: string, count: number): Promise<Map<string, string>> {
  const receipts = new Map<string, string>();
  for (let index = 0; index < count; index += 1) {
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        stream: index % 3 === 2,
        messages: [{ role: "user", content: `stored ${index} [fake:tokens=3]` }],
      }),
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    receipts.set(
      response.headers.get("x-request-id") ?? "",
      response.headers.get("x-pod-receipt") ?? streamReceipt(text).jws,
    );
  }
  return receipts;
}

/**
 * How each receipt was stored, fetched through the API first (which writes what is queued): "with
 * its settlement" when in the same transaction as its usage record (the same created_at).
 */
async function howStored(gateway: TestGateway, token: string, receipts: Map<string, string>) {
  for (const [requestId, jws] of receipts) {
    const fetched = await fetch(`${gateway.baseUrl}/proxy/${token}/receipts/${requestId}`);
    expect(await fetched.json()).toEqual({ request_id: requestId, receipt: jws });
  }
  const ids = sql.join(
    [...receipts.keys()].map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await queryRows<{ request_id: string; jws: string; with_settlement: boolean }>(
    gateway.app.database.db,
    sql`SELECT r.request_id, r.jws, u.created_at IS NOT DISTINCT FROM r.created_at AS with_settlement
        FROM usage_receipts r LEFT JOIN usage_records u USING (request_id)
        WHERE r.request_id IN (${ids})`,
  );
  expect(rows).toHaveLength(receipts.size);
  expect(new Map(rows.map((row) => [row.request_id, row.jws]))).toEqual(receipts);
  return rows.map((row) => (row.with_settlement ? "with its settlement" : "on its own"));
}

describe("receipt storage", () => {
  it("is stored by the settlement's batch when that is written after the signature", async () => {
    const gateway = await startTestGateway({ lease: true });
    gateways.push(gateway);
    const token = await gateway.createFundedToken(20_000_000n);
    const receipts = await served(gateway, token, 6);
    expect(await howStored(gateway, token, receipts)).toEqual(Array(6).fill("with its settlement"));
  }, 60_000);

  it("is stored on its own, once, when the batch was written before the signature", async () => {
    // No wait for company: a settlement reaching an idle writer is in its statement at once,
    // before its receipt is signed.
    const gateway = await startTestGateway({ lease: true, env: { BALANCE_LEASE_WRITE_DELAY_MS: "0" } });
    gateways.push(gateway);
    const token = await gateway.createFundedToken(20_000_000n);
    const receipts = await served(gateway, token, 6);
    expect(await howStored(gateway, token, receipts)).toContain("on its own");
  }, 60_000);
});
