import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../lib/db/client";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { findToken } from "../../lib/tokens/find-token";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { inferenceClient } from "../helpers/inference-client";

const writeDelayMs = 150;
const stallSeconds = 0.03;
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({
    lease: true,
    env: { BALANCE_LEASE_WRITE_DELAY_MS: String(writeDelayMs) },
  });
  // Every settlement batch is one INSERT into usage_records: counted, and made slower than the
  // requests arrive, which is when settlements pile up behind a write.
  const db = gateway.app.database.db;
  await db.execute(sql`CREATE TABLE batch_writes (at timestamptz NOT NULL DEFAULT clock_timestamp())`);
  await db.execute(
    sql.raw(`CREATE FUNCTION count_and_stall() RETURNS trigger AS $$
      BEGIN INSERT INTO batch_writes DEFAULT VALUES; PERFORM pg_sleep(${stallSeconds}); RETURN NULL; END
      $$ LANGUAGE plpgsql`),
  );
  await db.execute(
    sql`CREATE TRIGGER count_batches BEFORE INSERT ON usage_records FOR EACH STATEMENT EXECUTE FUNCTION count_and_stall()`,
  );
});
afterAll(async () => {
  await gateway?.close();
});

describe("lease settlements are written in batches", () => {
  it("at a steady trickle slower writes than requests still wait for company: one batch per write delay, and a flush writes every one", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const client = inferenceClient(gateway, token);
    const started = performance.now();
    const count = 60;
    for (let index = 0; index < count; index += 1) {
      const response = await client.chat({ maxTokens: 20, content: `trickle ${index} [fake:tokens=5]` });
      expect(response.status).toBe(200);
      await response.text();
    }
    const elapsedMs = performance.now() - started;
    // A reader that asks for everything gets everything, even while a batch is being written.
    await gateway.app.leases?.flush();
    const account = await findToken(gateway.app.database.db, token);
    const [usage] = await queryRows<{ n: number }>(
      gateway.app.database.db,
      sql`SELECT COUNT(*)::int AS n FROM usage_records WHERE account_id = ${account?.accountId ?? -1n}`,
    );
    expect(usage?.n).toBe(count);
    const [writes] = await queryRows<{ n: number }>(
      gateway.app.database.db,
      sql`SELECT COUNT(*)::int AS n FROM batch_writes`,
    );
    // Writing what arrived during a write at once would make a batch every stall (about
    // elapsed / 30 ms, a statement per request or two); waiting the delay after each write
    // makes at most one per delay (the flush's own batches on top).
    const bound = Math.floor(elapsedMs / writeDelayMs) + 3;
    console.log(
      `${count} requests in ${elapsedMs.toFixed(0)} ms: ${writes?.n} batch writes (bound ${bound})`,
    );
    expect(writes?.n).toBeGreaterThan(0);
    expect(writes?.n).toBeLessThanOrEqual(bound);
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  });
});
