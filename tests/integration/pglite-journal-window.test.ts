import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../lib/db/client";
import { getAccountBalance } from "../../lib/ledger/accounts";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { findToken } from "../../lib/tokens/find-token";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream";
import { registerFundedToken } from "../helpers/funded-token";
import { inferenceClient } from "../helpers/inference-client";
import { journalFigures } from "../helpers/journal-figures";
import { nextStart } from "../helpers/next-start";
import { type GatewayProcess, startGatewayProcess } from "../helpers/x402-gateway-process";

/**
 * The embedded PGlite (the `npm start` default) killed with kill -9 right after an answer: within
 * BILLING_JOURNAL_WINDOW the answer went out before its settlement was stored anywhere, and the
 * next start on the same data directory leaves exactly it unbilled, in the caller's favour; with
 * the window at 0 the answer waited for its journal line and the next start bills it.
 */
describe("a PGlite gateway killed (kill -9) right after an answer", () => {
  let upstream: FakeUpstream;
  let root: string;
  const adminToken = "pglite-window-admin";

  beforeAll(async () => {
    upstream = await startFakeUpstream("openai", "fake-openai");
    root = mkdtempSync(path.join(tmpdir(), "pod-pglite-window-"));
  });
  afterAll(async () => {
    await upstream?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const envFor = (dataDir: string, window: string) => ({
    POD_DATA_DIR: path.join(root, dataDir),
    OPENAI_API_KEY: "sk-test-openai",
    OPENAI_BASE_URL: upstream.baseUrl,
    ADMIN_TOKEN: adminToken,
    BALANCE_LEASE: "on",
    // The batch waits a second for company, so the kill comes before it is written.
    BALANCE_LEASE_WRITE_DELAY_MS: "1000",
    BILLING_JOURNAL_WINDOW: window,
  });

  async function ask(gateway: GatewayProcess, token: string, index: number) {
    const response = await inferenceClient({ baseUrl: gateway.url }, token).chat({
      content: `request ${index} [fake:tokens=30]`,
      maxTokens: 40,
    });
    expect(response.status).toBe(200);
    await response.text();
    return {
      id: response.headers.get("x-request-id") ?? "",
      cost: BigInt(response.headers.get("x-pod-cost-microunits") ?? "0"),
    };
  }

  const unjournaled = async (gateway: GatewayProcess) =>
    (await journalFigures(gateway.url, adminToken)).unjournaled;

  it.each([
    ["4", 1],
    ["0", 0],
  ] as const)(
    "BILLING_JOURNAL_WINDOW=%s: the next start leaves %i answer unbilled and bills the rest once",
    async (window, unbilled) => {
      const dataDir = `window-${window}`;
      const funded = 1_000_000n;
      const crashing = await startGatewayProcess(envFor(dataDir, window));
      let token: string;
      let first: Awaited<ReturnType<typeof ask>>;
      let last: Awaited<ReturnType<typeof ask>>;
      try {
        token = await registerFundedToken(crashing.url, adminToken, funded);
        first = await ask(crashing, token, 0);
        await expect.poll(() => unjournaled(crashing), { timeout: 10_000 }).toBe(0); // its batch is written
        last = await ask(crashing, token, 1);
        expect(await unjournaled(crashing)).toBe(unbilled);
      } finally {
        await crashing.kill(); // also when an assertion above failed: no process is left behind
      }

      const next = await nextStart(envFor(dataDir, window));
      try {
        const db = next.database.db;
        const record = await findToken(db, token);
        if (!record) throw new Error("token missing");
        const rows = await queryRows<{ request_id: string; cost: string }>(
          db,
          sql`SELECT request_id, cost_microunits::text AS cost FROM usage_records WHERE account_id = ${record.accountId}`,
        );
        const billed = rows.map((row) => row.request_id).sort();
        expect(billed).toEqual(unbilled === 1 ? [first.id] : [first.id, last.id].sort());
        const charged = rows.reduce((total, row) => total + BigInt(row.cost), 0n);
        expect(charged).toBe(unbilled === 1 ? first.cost : first.cost + last.cost);
        // The dead process's lease went back whole: the caller pays what was billed, nothing held.
        expect(await getAccountBalance(db, record.accountId)).toEqual({
          balance: funded - charged,
          held: 0n,
          available: funded - charged,
        });
        expect(await verifyLedger(db)).toEqual([]);
      } finally {
        await next.close();
      }
    },
    120_000,
  );
});
