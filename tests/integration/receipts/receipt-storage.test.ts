import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { queryRows } from "../../../lib/db/client";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { streamReceipt } from "../../helpers/receipts";

/**
 * Where a receipt is stored: with its request's usage record when it is signed before the
 * settlement's batch is written (one row a request fewer), on its own when the batch was
 * written first. Either way once, and found by its request id as soon as the caller has it.
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

/** Every place a receipt of these requests is stored, fetched through the API first (which writes what is queued). */
async function storedPlaces(gateway: TestGateway, token: string, receipts: Map<string, string>) {
  for (const [requestId, jws] of receipts) {
    const fetched = await fetch(`${gateway.baseUrl}/proxy/${token}/receipts/${requestId}`);
    expect(await fetched.json()).toEqual({ request_id: requestId, receipt: jws });
  }
  const ids = [...receipts.keys()];
  const rows = await queryRows<{ request_id: string; jws: string; place: string }>(
    gateway.app.database.db,
    sql`SELECT request_id, receipt AS jws, 'usage_records' AS place FROM usage_records
        WHERE request_id IN (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )}) AND receipt IS NOT NULL
        UNION ALL
        SELECT request_id, jws, 'usage_receipts' FROM usage_receipts
        WHERE request_id IN (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )})`,
  );
  expect(rows).toHaveLength(receipts.size);
  expect(new Map(rows.map((row) => [row.request_id, row.jws]))).toEqual(receipts);
  return rows.map((row) => row.place);
}

describe("receipt storage", () => {
  it("rides with the usage record when the settlement's batch is written after the signature", async () => {
    const gateway = await startTestGateway({ lease: true });
    gateways.push(gateway);
    const token = await gateway.createFundedToken(20_000_000n);
    const receipts = await served(gateway, token, 6);
    expect(await storedPlaces(gateway, token, receipts)).toEqual(Array(6).fill("usage_records"));
  }, 60_000);

  it("is stored on its own, once, when the batch was written before the signature", async () => {
    // No wait for company: a settlement reaching an idle writer is in its statement at once,
    // before its receipt is signed.
    const gateway = await startTestGateway({ lease: true, env: { BALANCE_LEASE_WRITE_DELAY_MS: "0" } });
    gateways.push(gateway);
    const token = await gateway.createFundedToken(20_000_000n);
    const receipts = await served(gateway, token, 6);
    const places = await storedPlaces(gateway, token, receipts);
    expect(places).toContain("usage_receipts");
  }, 60_000);
});
