import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAccount } from "../../lib/ledger/accounts";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/**
 * The ledger check finds books that do not add up: a balance that is not the sum of its
 * entries and a `held` that is not the sum of its open holds, each named with both numbers.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

describe("verifyLedger", () => {
  it("names an account whose balance and held disagree with its entries and holds", async () => {
    const database = gateway.app.database.db;
    expect(await verifyLedger(database)).toEqual([]);
    const account = await ensureAccount(database, "token", `verify-ledger-${Date.now()}`);
    // Written behind the ledger's back: no entry and no hold stands behind either number.
    await database.execute(sql`UPDATE accounts SET balance = 5000, held = 3000 WHERE id = ${account}`);
    const problems = await verifyLedger(database);
    // Put back, so the gateway's own check at close finds the books whole again.
    await database.execute(sql`UPDATE accounts SET balance = 0, held = 0 WHERE id = ${account}`);
    expect(await verifyLedger(database)).toEqual([]);
    expect(problems).toEqual([
      { kind: "balance_mismatch", ref: String(account), detail: "balance 5000 vs entries 0" },
      { kind: "held_mismatch", ref: String(account), detail: "held 3000 vs holds 0" },
    ]);
  });
});
