import { sql } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../lib/db/client";
import { gatewayMetrics } from "../../lib/metrics/gateway-metrics";
import { readConsoleUpstreamExcess } from "../../lib/operator-console/console-reads";
import { findToken } from "../../lib/tokens/find-token";
import { promptTokensOf } from "../helpers/fake-upstream";
import { startTestGateway, type TestGateway, testAdminToken } from "../helpers/gateway";
import { accountBalance, treasuryBalance } from "../helpers/ledger-accounts";

/**
 * A centralized upstream that bills more than it sent: its usage is 5,000 tokens above what it
 * generated, input and output. The caller is billed within the hold's caps; the rest is the
 * operator's cost, booked to `upstream-excess:openai` in the settlement's own transaction,
 * counted in the metric and shown in the reconcile report, on hold rows and on leases alike.
 */
const overreport = 5_000;
/** Set by the test: 1 µ a token in, 2 out, so the excess is exact. */
const price = { input: 1n, output: 2n };

describe.each([
  { name: "hold rows", lease: false },
  { name: "balance leases", lease: true },
])("an upstream over-reporting usage ($name)", ({ lease }) => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ lease });
    const set = await fetch(`${gateway.baseUrl}/v1/admin/catalog/models/gpt-4o-mini/prices/openai`, {
      method: "PUT",
      headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ input_per_1m: 1_000_000, output_per_1m: 2_000_000, actor: "test" }),
    });
    expect(set.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
  });

  it("books what the bill left out to the provider's upstream-excess account, and says so", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const client = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const metricBefore = gatewayMetrics.upstreamExcessMicrounits.value({ provider: "openai" });
    const treasuryBefore = await treasuryBalance(gateway);
    const options = { headers: { "x-pod-providers": "openai" } };
    const content = `count for me [fake:tokens=3] [fake:overreport=${overreport}]`;
    await client.chat.completions.create(
      { model: "gpt-4o-mini", max_tokens: 10, messages: [{ role: "user", content }] },
      options,
    );
    const stream = await client.chat.completions.create(
      {
        model: "gpt-4o-mini",
        max_tokens: 10,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content }],
      },
      options,
    );
    for await (const _chunk of stream);
    await gateway.app.leases?.flush(10_000);

    // Both bodies carry the same messages: the upstream claimed the same input for each.
    const [sent] = gateway.openai.requests.slice(-1);
    const claimedInput = promptTokensOf(sent?.body ?? {}) + overreport;
    const claimedOutput = 3 + overreport;
    const record = await findToken(gateway.app.database.db, token);
    const billed = await queryRows<{ input_tokens: number; output_tokens: number; cost: string }>(
      gateway.app.database.db,
      sql`SELECT input_tokens, output_tokens, cost_microunits::text AS cost FROM usage_records
          WHERE account_id = ${record?.accountId ?? 0n}`,
    );
    expect(billed).toHaveLength(2);
    let expected = 0n;
    for (const row of billed) {
      // The caller pays within its caps: never the 5,000 the upstream added.
      expect(Number(row.output_tokens)).toBeLessThanOrEqual(10);
      expect(Number(row.input_tokens)).toBeLessThan(overreport);
      expected +=
        BigInt(claimedInput - Number(row.input_tokens)) * price.input +
        BigInt(claimedOutput - Number(row.output_tokens)) * price.output;
    }
    const charged = billed.reduce((total, row) => total + BigInt(row.cost), 0n);
    // Double entry: the excess account is debited what the treasury owes the upstream beyond the charge.
    expect(await accountBalance(gateway, "external", "upstream-excess:openai")).toBe(-expected);
    expect((await treasuryBalance(gateway)) - treasuryBefore).toBe(charged + expected);
    expect(gatewayMetrics.upstreamExcessMicrounits.value({ provider: "openai" }) - metricBefore).toBe(
      Number(expected),
    );
    const metrics = await fetch(`${gateway.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${testAdminToken}` },
    });
    const exposed = await metrics.text();
    expect(exposed).toMatch(/pod_upstream_excess_microunits_total\{provider="openai"\} \d+/);
    // The books' figure, the same on every replica: this suite's two requests are all there is.
    expect(exposed).toContain(`pod_upstream_excess_account_microunits ${expected}`);

    expect(await readConsoleUpstreamExcess(gateway.app.database.db)).toEqual({
      providers: [{ provider: "openai", microunits: expected }],
      totalMicrounits: expected,
    });
    const report = await fetch(`${gateway.baseUrl}/v1/admin/reconcile`, {
      headers: { authorization: `Bearer ${testAdminToken}` },
    });
    expect(await report.json()).toMatchObject({
      reconciled: true,
      upstream_excess: {
        total_microunits: expected.toString(),
        providers: [{ provider: "openai", microunits: expected.toString() }],
      },
    });
  }, 60_000);

  it("books nothing for an upstream that reports what it sent", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const client = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const before = await accountBalance(gateway, "external", "upstream-excess:openai");
    await client.chat.completions.create(
      { model: "gpt-4o-mini", max_tokens: 10, messages: [{ role: "user", content: "hi [fake:tokens=3]" }] },
      { headers: { "x-pod-providers": "openai" } },
    );
    await gateway.app.leases?.flush(10_000);
    expect(await accountBalance(gateway, "external", "upstream-excess:openai")).toBe(before);
  }, 60_000);
});
