import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, queryRows } from "../../lib/db/client";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { findToken } from "../../lib/tokens/find-token";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream";
import { inferenceClient } from "../helpers/inference-client";
import { testSharedPostgres } from "../helpers/services";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { type GatewayProcess, startGatewayProcess } from "../helpers/x402-gateway-process";

/**
 * One count per job: the same stream served twice, once to its end on one replica (live
 * metering: the tokenizer's count of the prompt sent and of the content relayed, the upstream
 * sending no usage) and once on a second replica killed with kill -9 while the upstream is
 * quiet after its last token. The survivor bills the dead replica's journaled running count:
 * the same input, output and cost as live metering, not an estimate.
 */
const postgresUrl = testSharedPostgres("A killed replica's journaled stream").url;
const adminToken = "journaled-count-admin";
/** Quiet long enough after the last token for the running count to be journaled (a second) and read. */
const content = "Tell me a long story about a lighthouse. [fake:tokens=28] [fake:nousage] [fake:linger=8000]";

interface Billed {
  input_tokens: number;
  output_tokens: number;
  cost: string;
  outcome: string;
}

describe.skipIf(!postgresUrl)("a killed replica's journaled stream", () => {
  let upstream: FakeUpstream;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  const journals: string[] = [];
  const replicas: GatewayProcess[] = [];

  beforeAll(async () => {
    [upstream, database] = await Promise.all([
      startFakeUpstream("openai", "fake-openai"),
      createTestDatabase(),
    ]);
    handle = await openDatabase({ url: database.url });
    await handle.migrate();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    if (handle) {
      expect(await verifyLedger(handle.db)).toEqual([]);
      await handle.close();
    }
    await upstream?.close();
    await database?.drop();
    for (const directory of journals) rmSync(directory, { recursive: true, force: true });
  });

  async function replica(): Promise<GatewayProcess> {
    const journal = mkdtempSync(path.join(tmpdir(), "pod-count-journal-"));
    journals.push(journal);
    const started = await startGatewayProcess({
      DATABASE_URL: database.url ?? "",
      OPENAI_API_KEY: "sk-test-openai",
      OPENAI_BASE_URL: upstream.baseUrl,
      ADMIN_TOKEN: adminToken,
      BALANCE_LEASE: "on",
      BILLING_JOURNAL: "database",
      BILLING_JOURNAL_DIR: journal,
      DEAD_INSTANCE_CHECK_SECONDS: "1",
    });
    replicas.push(started);
    return started;
  }

  async function until<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const value = await read();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`not reached within 30 s: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const billedOf = async (requestId: string) =>
    (
      await queryRows<Billed>(
        handle.db,
        sql`SELECT input_tokens, output_tokens, cost_microunits::text AS cost, outcome
            FROM usage_records WHERE request_id = ${requestId}`,
      )
    )[0];

  /** Reads a stream until its `count` content pieces arrived (or it ends); returns its request id. */
  async function relay(gateway: GatewayProcess, token: string, count: number) {
    const response = await inferenceClient({ baseUrl: gateway.url }, token).chat({
      stream: true,
      maxTokens: 60,
      content,
    });
    expect(response.status).toBe(200);
    const requestId = response.headers.get("x-request-id") ?? "";
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no stream");
    const decoder = new TextDecoder();
    let text = "";
    while ([...text.matchAll(/"content":"[^"]+"/g)].length < count) {
      const next = await reader.read();
      if (next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
    return { requestId, reader };
  }

  it("is billed by the survivor exactly as live metering bills the same stream", async () => {
    const [survivor, doomed] = [await replica(), await replica()];
    const registered = (await (await fetch(`${survivor.url}/v1/register`, { method: "POST" })).json()) as {
      api_token: string;
    };
    const credited = await fetch(`${survivor.url}/v1/admin/credits`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ api_token: registered.api_token, amount_microunits: "5000000", reason: "test" }),
    });
    expect(credited.status).toBe(200);
    const token = registered.api_token;

    // Live: the stream to its end on the survivor.
    const live = await relay(survivor, token, Number.POSITIVE_INFINITY);
    const metered = await until(() => billedOf(live.requestId), "the live stream's usage record");
    expect(metered.outcome).toBe("completed");
    expect(Number(metered.output_tokens)).toBeGreaterThan(14);

    // The same stream on the other replica, killed once its whole content was relayed and journaled.
    const cut = await relay(doomed, token, 28);
    await until(async () => {
      const [row] = await queryRows<{ output: number | null }>(
        handle.db,
        sql`SELECT (settlement->'usage'->>'outputTokens')::int AS output FROM settlement_journal
            WHERE request_id = ${cut.requestId}`,
      );
      return row?.output === Number(metered.output_tokens) ? true : undefined;
    }, "the running count of the whole relayed content in the journal");
    await doomed.kill();
    await cut.reader.read().catch(() => undefined);

    const replayed = await until(
      () => billedOf(cut.requestId),
      "the survivor's replay of the dead replica's journal",
    );
    expect(replayed.outcome).toBe("interrupted");
    expect({ ...replayed, outcome: "" }).toEqual({ ...metered, outcome: "" });
    const account = await findToken(handle.db, token);
    const [totals] = await queryRows<{ requests: number }>(
      handle.db,
      sql`SELECT COUNT(*)::int AS requests FROM usage_records WHERE account_id = ${account?.accountId ?? 0n}`,
    );
    expect(totals?.requests).toBe(2);
  }, 120_000);
});
