import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hostTrustEvents } from "../../../lib/db/schema";
import { ensureAccount, getAccountBalance } from "../../../lib/ledger/accounts";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { worstCaseCost } from "../../../lib/pricing/cost";
import type { HostFinding, TrustFindingSink } from "../../../lib/providers/trust-finding-sink";
import { withAgentMarket } from "../../helpers/agent-market";
import type { RunningAgent } from "../../helpers/agent-process";
import type { TestGateway } from "../../helpers/gateway";
import { connectHostileHost } from "../../helpers/hostile-host";
import type { MarketplaceFixture } from "../../helpers/marketplace-fixture";

/**
 * Each attack of issue 17's list, done by a hostile agent process (written from the shared
 * protocol module) over a real WebSocket: the caller still gets a clean answer or a clean error
 * within its deadline, is charged at most the worst case of what the gateway forwarded, the host
 * is credited at most 80% of that, the attack is on the host's record, the agent's slot is
 * free again, the gateway keeps billing everyone else, and the ledger verifies.
 */
const deadlineMs = 4_000;
let gateway: TestGateway;
let market: MarketplaceFixture;
const processes: RunningAgent[] = [];

withAgentMarket({
  env: { PROVIDER_JOB_DEADLINE_MS: String(deadlineMs), PROVIDER_HEARTBEAT_TIMEOUT_MS: "5000" },
  processes,
  started: (started) => {
    ({ gateway, market } = started);
  },
});

const price = {
  inputPer1m: 100_000n,
  outputPer1m: 400_000n,
  cacheReadPer1m: 100_000n,
  cacheWritePer1m: 100_000n,
};
const maxTokens = 20;

const hostileHost = (attack: string) => connectHostileHost(gateway, market, processes, attack);

async function providerBalance(providerId: string): Promise<bigint> {
  const id = await ensureAccount(gateway.app.database.db, "provider", providerId);
  return (await getAccountBalance(gateway.app.database.db, id)).balance;
}

async function trustKinds(providerId: string): Promise<string[]> {
  const rows = await gateway.app.database.db
    .select({ kind: hostTrustEvents.kind })
    .from(hostTrustEvents)
    .where(and(eq(hostTrustEvents.hostId, providerId)));
  return rows.map((row) => row.kind);
}

/** A caller's request, read to its end (or its error) with the clock running. */
async function call(token: string, stream: boolean) {
  const body = JSON.stringify({
    model: "gpt-4o-mini",
    max_tokens: maxTokens,
    stream,
    messages: [{ role: "user", content: "Say one thing about the sea." }],
  });
  const started = Date.now();
  const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-Pod-Routing-Mode": "marketplace-only" },
    body,
    signal: AbortSignal.timeout(deadlineMs + 10_000),
  });
  const text = await response.text();
  return { response, text, elapsedMs: Date.now() - started, bodyBytes: Buffer.byteLength(body) };
}

const attacks: Array<{ attack: string; stream: boolean; findings: string[] }> = [
  { attack: "overclaim-body", stream: true, findings: ["over_claim"] },
  { attack: "overclaim-done", stream: true, findings: ["over_claim"] },
  { attack: "count-2^31", stream: true, findings: ["invalid_claim", "protocol_violation"] },
  { attack: "count-1e15", stream: true, findings: ["invalid_claim", "protocol_violation"] },
  { attack: "count-negative", stream: true, findings: ["invalid_claim", "protocol_violation"] },
  { attack: "count-fractional", stream: true, findings: ["invalid_claim", "protocol_violation"] },
  { attack: "status-101", stream: true, findings: ["protocol_violation"] },
  { attack: "crlf-header", stream: false, findings: ["protocol_violation"] },
  { attack: "after-done", stream: true, findings: ["protocol_violation"] },
  { attack: "other-job-id", stream: true, findings: ["protocol_violation"] },
  { attack: "ignore-max-tokens", stream: true, findings: ["over_limit"] },
];

describe("a hostile agent process", () => {
  it.each(attacks)("$attack: clean answer in time, bounded charge, on the host's record", async (plan) => {
    const host = await hostileHost(plan.attack);
    const token = await gateway.createFundedToken(1_000_000n);
    const { response, text, elapsedMs, bodyBytes } = await call(token, plan.stream);

    // A clean answer or a clean error in the caller's dialect, within the job's deadline.
    expect(elapsedMs).toBeLessThan(deadlineMs + 2_000);
    if (response.status === 200) {
      if (!plan.stream) expect(() => JSON.parse(text)).not.toThrow();
      else expect(text).toMatch(/^data: /m);
      expect(text).not.toContain("x-injected");
    } else {
      expect(response.status).toBeGreaterThanOrEqual(500);
      expect((JSON.parse(text) as { error: { type: string } }).error.type).toMatch(/upstream|no_provider/);
    }
    expect(response.headers.get("x-injected")).toBeNull();

    // The hold is gone, the slot is free, and the charge is within the worst case forwarded.
    await expect.poll(() => gateway.balanceOf(token).then((balance) => balance.held)).toBe(0n);
    await expect.poll(() => gateway.marketplace.inFlight(host.providerId)).toBe(0);
    const charged = 1_000_000n - (await gateway.balanceOf(token)).balance;
    const worst = worstCaseCost(Math.ceil(bodyBytes / 2) + 16, maxTokens, price);
    expect(charged).toBeLessThanOrEqual(worst);
    expect(await providerBalance(host.providerId)).toBeLessThanOrEqual((charged * 80n) / 100n);

    // The attack is on the host's record.
    await expect
      .poll(async () => (await trustKinds(host.providerId)).some((kind) => plan.findings.includes(kind)))
      .toBe(true);

    // Everyone else is still billed: a centralized request settles exactly, and the books verify.
    const other = await gateway.createFundedToken(1_000_000n);
    const honest = await fetch(`${gateway.baseUrl}/proxy/${other}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-Pod-Routing-Mode": "centralized-only" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(honest.status).toBe(200);
    const cost = BigInt(honest.headers.get("x-pod-cost-microunits") ?? "0");
    expect(cost).toBeGreaterThan(0n);
    expect((await gateway.balanceOf(other)).balance).toBe(1_000_000n - cost);
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  });

  it("an honest agent process is billed its own counts and has nothing on its record", async () => {
    const host = await hostileHost("honest");
    const token = await gateway.createFundedToken(1_000_000n);
    const { response } = await call(token, true);
    expect(response.status).toBe(200);
    await expect.poll(() => gateway.balanceOf(token).then((balance) => balance.held)).toBe(0n);
    // 12 input and 5 output tokens at the agent's price, as it reported them.
    const cost = (12n * price.inputPer1m + 5n * price.outputPer1m + 999_999n) / 1_000_000n;
    expect((await gateway.balanceOf(token)).balance).toBe(1_000_000n - cost);
    expect(await providerBalance(host.providerId)).toBe((cost * 80n) / 100n);
    // The sink has stored everything it was handed: an empty record is a record, not a delay.
    await gateway.app.trustFindings.idle();
    expect(await trustKinds(host.providerId)).toEqual([]);
  });

  it("an over-claiming agent's request settles while its findings are still unstored (settlement never waits on trust)", async () => {
    const host = await hostileHost("overclaim-body");
    const recorder = gateway.app.trustFindings;
    const sink = new GatedSink();
    gateway.app.trustFindings = sink;
    try {
      const token = await gateway.createFundedToken(1_000_000n);
      // A relayed stream settles before its last byte goes out: read whole, it has settled.
      const { response } = await call(token, true);
      expect(response.status).toBe(200);
      const balance = await gateway.balanceOf(token);
      expect(balance.held).toBe(0n);
      expect(balance.balance).toBeLessThan(1_000_000n);
      expect(sink.received.map((finding) => [finding.hostId, finding.kind])).toContainEqual([
        host.providerId,
        "over_claim",
      ]);
      expect(sink.stored).toBe(0);
      sink.open();
      await sink.idle();
      await expect.poll(() => sink.stored).toBe(sink.received.length);
    } finally {
      sink.open();
      gateway.app.trustFindings = recorder;
    }
  });
});

/** A trust sink whose storing is held at a gate the test opens: `stored` counts what got past it. */
class GatedSink implements TrustFindingSink {
  readonly received: HostFinding[] = [];
  stored = 0;
  open: () => void = () => undefined;
  readonly #gate = new Promise<void>((resolve) => {
    this.open = resolve;
  });

  report(findings: readonly HostFinding[]): void {
    this.received.push(...findings);
    this.#gate
      .then(() => {
        this.stored += findings.length;
      })
      .catch(() => undefined);
  }

  idle(): Promise<void> {
    return this.#gate;
  }
}
