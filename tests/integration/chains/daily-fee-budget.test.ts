import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FeeBudget, feesSpent, reserveFee, settleFee } from "../../../lib/chains/daily-fee-budget";
import { gasBudget } from "../../../lib/chains/evm/gas-budget";
import { type DatabaseHandle, openDatabase, queryRows } from "../../../lib/db/client";
import { transactionUnless } from "../../../lib/db/rollback";
import { createTestDatabase, type TestDatabase } from "../../helpers/test-database";

let testDatabase: TestDatabase;
let handle: DatabaseHandle;

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  handle = await openDatabase({ url: testDatabase.url, dataDir: testDatabase.dataDir, maxConnections: 20 });
  await handle.migrate();
});
afterAll(async () => {
  await handle?.close();
  await testDatabase?.drop();
});

const sponsored: FeeBudget = { table: "x402_sponsored_fees", spentColumn: "spent_lamports", key: {} };

describe("the daily fee budget (Solana sponsored fees, EVM gas)", () => {
  it("lets concurrent reservations spend at most the day's budget, to the unit", async () => {
    const database = handle.db;
    const day = "2030-01-01";
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        database.transaction((transaction) =>
          reserveFee(transaction, gasBudget("eip155:1"), { day, amount: 7n, dailyLimit: 100n }),
        ),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(14);
    expect(await feesSpent(database, gasBudget("eip155:1"), day)).toBe(98n);
    // Exactly to the limit still fits; one more unit does not.
    expect(await reserveFee(database, gasBudget("eip155:1"), { day, amount: 2n, dailyLimit: 100n })).toBe(
      true,
    );
    expect(await reserveFee(database, gasBudget("eip155:1"), { day, amount: 1n, dailyLimit: 100n })).toBe(
      false,
    );
    // Another network, and another table, keep their own days.
    expect(await feesSpent(database, gasBudget("eip155:8453"), day)).toBe(0n);
    expect(await reserveFee(database, sponsored, { day, amount: 100n, dailyLimit: 100n })).toBe(true);
    // A single spend above the whole budget never reserves, not even on an empty day.
    expect(await reserveFee(database, sponsored, { day: "2030-01-02", amount: 101n, dailyLimit: 100n })).toBe(
      false,
    );
  });

  it("replaces a reservation by what was paid, never below zero, and uncounts one that paid nothing", async () => {
    const database = handle.db;
    const day = "2030-02-01";
    const gas = gasBudget("eip155:84532");
    expect(await reserveFee(database, gas, { day, amount: 50n, dailyLimit: 1000n })).toBe(true);
    expect(await reserveFee(database, gas, { day, amount: 50n, dailyLimit: 1000n })).toBe(true);
    await settleFee(database, gas, { day, reserved: 50n, spent: 80n });
    expect(await feesSpent(database, gas, day)).toBe(130n);
    await settleFee(database, gas, { day, reserved: 50n, spent: 0n });
    expect(await feesSpent(database, gas, day)).toBe(80n);
    // A refund larger than the day's spend (a day reset under it) floors at zero.
    await settleFee(database, gas, { day, reserved: 500n, spent: 0n });
    expect(await feesSpent(database, gas, day)).toBe(0n);
    const [row] = await queryRows<{ settlements: number }>(
      database,
      sql`SELECT settlements FROM x402_gas_spend WHERE network = 'eip155:84532' AND day = ${day}::date`,
    );
    expect(row?.settlements).toBe(0);
  });
});

describe("transactionUnless", () => {
  it("undoes every write of a refused transaction and hands back the reason", async () => {
    const database = handle.db;
    const refused = await transactionUnless(
      database,
      async (transaction, rollback: (reason: "over_budget") => never) => {
        await reserveFee(transaction, sponsored, { day: "2030-03-01", amount: 5n, dailyLimit: 10n });
        return rollback("over_budget");
      },
    );
    expect(refused).toEqual({ type: "rolled_back", reason: "over_budget" });
    expect(await feesSpent(database, sponsored, "2030-03-01")).toBe(0n);

    const committed = await transactionUnless(database, async (transaction) =>
      reserveFee(transaction, sponsored, { day: "2030-03-01", amount: 5n, dailyLimit: 10n }),
    );
    expect(committed).toEqual({ type: "committed", value: true });
    expect(await feesSpent(database, sponsored, "2030-03-01")).toBe(5n);
  });

  it("lets any other error through, and a refusal reaches only the call that made it", async () => {
    const database = handle.db;
    await expect(
      transactionUnless(database, async () => {
        throw new Error("the disk is full");
      }),
    ).rejects.toThrow("the disk is full");

    const outer = await transactionUnless(
      database,
      async (transaction, rollback: (reason: "outer") => never) => {
        const inner = await transactionUnless(
          transaction,
          async (_nested, innerRollback: (reason: "inner") => never) => innerRollback("inner"),
        );
        expect(inner).toEqual({ type: "rolled_back", reason: "inner" });
        await transactionUnless(transaction, async () => rollback("outer"));
        return "not reached";
      },
    );
    expect(outer).toEqual({ type: "rolled_back", reason: "outer" });
  });
});
