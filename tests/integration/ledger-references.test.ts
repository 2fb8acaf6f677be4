import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, queryRows } from "../../lib/db/client";
import { postgresErrorCode } from "../../lib/db/postgres-error-code";
import { newTimeOrderedUuid } from "../../lib/ids";
import { ensureAccount } from "../../lib/ledger/accounts";
import { openTestLedger } from "../helpers/test-database";

/**
 * A ledger entry names its account and its ledger transaction. Migration 0027 checks that per
 * statement (triggers) instead of per row (foreign keys): these are the writes a foreign key
 * refused, made on purpose, each of which must still be refused whole, on PGlite and on Postgres
 * (TEST_DATABASE_URL, which .ci/run's service pass sets).
 */
let ledger: Awaited<ReturnType<typeof openTestLedger>>;
let handle: DatabaseHandle;
let account: bigint;
let other: bigint;
let transaction: string;

const foreignKeyViolation = "23503";

async function refusal(statement: Promise<unknown>): Promise<string | undefined> {
  try {
    await statement;
  } catch (error) {
    return postgresErrorCode(error);
  }
  return "accepted";
}

const entryCount = async () =>
  Number(
    (await queryRows<{ n: string }>(handle.db, sql`SELECT count(*)::text AS n FROM ledger_entries`))[0]?.n,
  );

beforeAll(async () => {
  ledger = await openTestLedger();
  handle = ledger.handle;
  account = await ensureAccount(handle.db, "token", "references-a");
  other = await ensureAccount(handle.db, "external", "references-b");
  transaction = newTimeOrderedUuid();
  await handle.db.execute(sql`INSERT INTO ledger_transactions (id, kind) VALUES (${transaction}, 'test')`);
  await handle.db.execute(
    sql`INSERT INTO ledger_entries (transaction_id, account_id, amount)
        VALUES (${transaction}, ${account}, 5), (${transaction}, ${other}, -5)`,
  );
});
afterAll(async () => {
  await ledger?.close();
});

describe("ledger entries name rows that exist", () => {
  it("an entry for an account that does not exist is refused", async () => {
    const before = await entryCount();
    const code = await refusal(
      handle.db.execute(
        sql`INSERT INTO ledger_entries (transaction_id, account_id, amount) VALUES (${transaction}, 987654321, 1)`,
      ),
    );
    expect(code).toBe(foreignKeyViolation);
    expect(await entryCount()).toBe(before);
  });

  it("an entry for a ledger transaction that does not exist is refused", async () => {
    const code = await refusal(
      handle.db.execute(
        sql`INSERT INTO ledger_entries (transaction_id, account_id, amount) VALUES (${newTimeOrderedUuid()}, ${account}, 1)`,
      ),
    );
    expect(code).toBe(foreignKeyViolation);
  });

  it("one bad row among many refuses the whole statement: nothing of it is written", async () => {
    const before = await entryCount();
    const fresh = newTimeOrderedUuid();
    await handle.db.execute(sql`INSERT INTO ledger_transactions (id, kind) VALUES (${fresh}, 'test')`);
    const rows = Array.from({ length: 300 }, (_, index) => ({
      transaction_id: fresh,
      account_id: index === 217 ? "-1" : account.toString(),
      amount: index % 2 === 0 ? 1 : -1,
    }));
    const code = await refusal(
      handle.db.execute(
        sql`INSERT INTO ledger_entries (transaction_id, account_id, amount)
            SELECT transaction_id, account_id, amount
            FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(transaction_id uuid, account_id bigint, amount bigint)`,
      ),
    );
    expect(code).toBe(foreignKeyViolation);
    expect(await entryCount()).toBe(before);
  });

  it("an entry cannot be moved to an account or a transaction that does not exist", async () => {
    expect(
      await refusal(
        handle.db.execute(
          sql`UPDATE ledger_entries SET account_id = 987654321 WHERE account_id = ${account}`,
        ),
      ),
    ).toBe(foreignKeyViolation);
    expect(
      await refusal(
        handle.db.execute(
          sql`UPDATE ledger_entries SET transaction_id = ${newTimeOrderedUuid()} WHERE transaction_id = ${transaction}`,
        ),
      ),
    ).toBe(foreignKeyViolation);
    // An update that keeps its references (as a test that ages rows does) is fine.
    expect(
      await refusal(
        handle.db.execute(sql`UPDATE ledger_entries SET created_at = created_at - interval '1 day'`),
      ),
    ).toBe("accepted");
  });

  it("an account or a ledger transaction that entries name is neither deleted nor renumbered", async () => {
    expect(await refusal(handle.db.execute(sql`DELETE FROM accounts WHERE id = ${account}`))).toBe(
      foreignKeyViolation,
    );
    expect(
      await refusal(handle.db.execute(sql`DELETE FROM ledger_transactions WHERE id = ${transaction}`)),
    ).toBe(foreignKeyViolation);
    expect(
      await refusal(handle.db.execute(sql`UPDATE accounts SET id = 987654321 WHERE id = ${account}`)),
    ).toBe(foreignKeyViolation);
    expect(
      await refusal(
        handle.db.execute(
          sql`UPDATE ledger_transactions SET id = ${newTimeOrderedUuid()} WHERE id = ${transaction}`,
        ),
      ),
    ).toBe(foreignKeyViolation);
    // Balance moves update accounts without touching ids, and pass.
    expect(
      await refusal(handle.db.execute(sql`UPDATE accounts SET balance = balance WHERE id = ${account}`)),
    ).toBe("accepted");
  });

  it("a ledger transaction no entry names can go (as the tamper tests remove one)", async () => {
    const spare = newTimeOrderedUuid();
    await handle.db.execute(sql`INSERT INTO ledger_transactions (id, kind) VALUES (${spare}, 'test')`);
    expect(await refusal(handle.db.execute(sql`DELETE FROM ledger_transactions WHERE id = ${spare}`))).toBe(
      "accepted",
    );
    const left = await queryRows<{ id: string }>(
      handle.db,
      sql`SELECT id FROM ledger_transactions WHERE id = ${spare}`,
    );
    expect(left).toEqual([]);
  });
});
