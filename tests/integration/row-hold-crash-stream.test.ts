import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, queryRows } from "../../lib/db/client";
import { getAccountBalance } from "../../lib/ledger/accounts";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { findToken } from "../../lib/tokens/find-token";
import { countTokens } from "../../lib/usage/tokenizer";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream";
import { registerFundedToken } from "../helpers/funded-token";
import { streamedPieces } from "../helpers/inference-client";
import { testSharedPostgres } from "../helpers/services";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { startGatewayProcess } from "../helpers/x402-gateway-process";

/**
 * A prepaid stream on a hold row (BALANCE_LEASE=off: the hold x402 payments use too) cut by
 * kill -9, with the journal in a file on the process's disk (what PGlite uses): the next start
 * on that disk replays the stream's running count, bills it once out of the row, then releases
 * the rest. Postgres only so the test can read the books while processes come and go.
 */
const postgresUrl = testSharedPostgres("Hold-row streams cut by a crash").url;
const adminToken = "row-hold-admin";

describe.skipIf(!postgresUrl)("a hold-row stream cut by kill -9, file journal", () => {
  let upstream: FakeUpstream;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let journal: string;

  beforeAll(async () => {
    [upstream, database] = await Promise.all([
      startFakeUpstream("openai", "fake-openai"),
      createTestDatabase(),
    ]);
    handle = await openDatabase({ url: database.url });
    await handle.migrate();
    journal = mkdtempSync(path.join(tmpdir(), "pod-row-journal-"));
  }, 60_000);

  afterAll(async () => {
    if (handle) {
      expect(await verifyLedger(handle.db)).toEqual([]);
      await handle.close();
    }
    await upstream?.close();
    await database?.drop();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  const env = () => ({
    DATABASE_URL: database.url ?? "",
    OPENAI_API_KEY: "sk-test-openai",
    OPENAI_BASE_URL: upstream.baseUrl,
    ADMIN_TOKEN: adminToken,
    BALANCE_LEASE: "off",
    BILLING_JOURNAL: "file",
    BILLING_JOURNAL_DIR: journal,
  });

  it("the next start bills the relayed part once, out of the hold, and frees the rest", async () => {
    const crashing = await startGatewayProcess(env());
    const funded = 5_000_000n;
    const token = await registerFundedToken(crashing.url, adminToken, funded);
    const record = await findToken(handle.db, token);
    if (!record) throw new Error("token missing");
    const response = await fetch(`${crashing.url}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        max_tokens: 60,
        stream: true,
        messages: [{ role: "user", content: "a long answer [fake:tokens=60] [fake:slow=80]" }],
      }),
    });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no stream");
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = Date.now() + 2_500;
    while (Date.now() < readUntil) {
      const next = await reader.read();
      if (next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
    const relayed = [...text.matchAll(/"content":"[^"]+"/g)].length;
    expect(relayed).toBeGreaterThan(10);
    expect(text).not.toContain("[DONE]");
    const held = (await getAccountBalance(handle.db, record.accountId)).held;
    expect(held).toBeGreaterThan(0n);
    await crashing.kill();
    await reader.read().catch(() => undefined);
    // The running count is in the dead process's file, capped at its hold row.
    const files = readdirSync(journal);
    expect(files).toHaveLength(1);
    const counts = readFileSync(path.join(journal, files[0] ?? ""), "utf8")
      .split("\n")
      .filter((line) => line.startsWith('{"progress"'));
    expect(counts.length).toBeGreaterThan(0);

    const next = await startGatewayProcess(env());
    try {
      const rows = await queryRows<{ outcome: string; output_tokens: string | number; cost: string }>(
        handle.db,
        sql`SELECT outcome, output_tokens, cost_microunits::text AS cost FROM usage_records
            WHERE account_id = ${record.accountId}`,
      );
      expect(rows).toHaveLength(1);
      const billed = rows[0];
      expect(billed?.outcome).toBe("interrupted");
      expect(Number(billed?.output_tokens)).toBeGreaterThan(0);
      // The tokenizer's count of what was relayed, journaled up to a second before the crash.
      expect(Number(billed?.output_tokens)).toBeLessThanOrEqual(
        await countTokens(streamedPieces(text).join("")),
      );
      const cost = BigInt(billed?.cost ?? "0");
      expect(cost).toBeGreaterThan(0n);
      expect(cost).toBeLessThanOrEqual(held);
      expect(await getAccountBalance(handle.db, record.accountId)).toMatchObject({
        held: 0n,
        balance: funded - cost,
      });
      // The dead process's file is gone once billed; a further start bills nothing again.
      expect(readdirSync(journal).filter((name) => name === files[0])).toEqual([]);
    } finally {
      await next.stop();
    }
    const again = await startGatewayProcess(env());
    await again.stop();
    const count = await queryRows<{ n: string | number }>(
      handle.db,
      sql`SELECT COUNT(*) AS n FROM usage_records WHERE account_id = ${record.accountId}`,
    );
    expect(Number(count[0]?.n)).toBe(1);
  }, 120_000);
});
