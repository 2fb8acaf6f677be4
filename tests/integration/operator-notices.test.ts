import { operatorNoticeEventSchema } from "@pod-gateway/contracts/operator-console";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { accounts, hosts, operatorNotices } from "../../lib/db/schema";
import { ensureAccount } from "../../lib/ledger/accounts";
import { AgentAbsence } from "../../lib/operator-console/agent-absence";
import { type NoticeState, runOperatorNotices } from "../../lib/operator-console/operator-notices";
import { recordTrustEvents } from "../../lib/trust/trust-events";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { createMarketplaceFixture, type MarketplaceFixture } from "../helpers/marketplace-fixture";
import type { ScriptedAgent } from "../helpers/scripted-agent";
import { scriptedHost, serveHonestJob, withdrawAs } from "../helpers/scripted-host";
import { isSignedBy, startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

/**
 * The operator is told, once per episode and signed: a payout awaiting approval, a host excluded,
 * an active host whose agent is away longer than the limit, and a reconcile difference; each
 * notice closes when its condition clears, and a second pass (or a second replica) sends nothing again.
 */
const secret = "operator-webhook-secret-0123";
let gateway: TestGateway;
let market: MarketplaceFixture;
let hooks: WebhookReceiver;
const agents: ScriptedAgent[] = [];

beforeAll(async () => {
  hooks = await startWebhookReceiver("/pod-operator");
  gateway = await startTestGateway({
    env: {
      OPERATOR_WEBHOOK_URL: hooks.url,
      OPERATOR_WEBHOOK_SECRET: secret,
      OPERATOR_AGENT_OFFLINE_SECONDS: "60",
      OPERATOR_RECONCILE_MINUTES: "1",
      HOST_EARNINGS_MATURITY_SECONDS: "1",
      HOST_WITHDRAW_MIN_MICROUNITS: "1000",
      HOST_WITHDRAW_REVIEW_MICROUNITS: "1000",
    },
  });
  market = createMarketplaceFixture(gateway);
});
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.close();
  await market.cleanup();
});
afterAll(async () => {
  await gateway?.close();
  await hooks?.close();
});

const events = () => hooks.received.map((hook) => operatorNoticeEventSchema.parse(JSON.parse(hook.body)));
const openNotices = () =>
  gateway.app.database.db.select().from(operatorNotices).where(sql`${operatorNotices.resolvedAt} IS NULL`);

describe("operator notices", () => {
  it("tells each condition once, signed, and closes it when it clears", async () => {
    const state: NoticeState = { absence: new AgentAbsence() };
    const replica: NoticeState = { absence: new AgentAbsence() };
    const start = Date.now();
    const at = (seconds: number) => new Date(start + seconds * 1000);

    // A host that served a job and asks for more than the review threshold: awaiting approval.
    const served = await scriptedHost(gateway, market, { maxConcurrent: 2 });
    agents.push(served.agent);
    await serveHonestJob(gateway, served.agent, await gateway.createFundedToken(100_000_000n));
    await new Promise((resolve) => setTimeout(resolve, 1300));
    const withdrawal = await withdrawAs(gateway, served.host, "0.0032", "notice-payout");
    expect(withdrawal.status).toBe(202);
    const payoutId = ((await withdrawal.json()) as { id: string }).id;
    // A second host, active, whose agent never connects; its record has five over-claims: excluded.
    const absent = await market.enroll({ name: "absent box" });
    await recordTrustEvents(
      gateway.app.database.db,
      absent.providerId,
      Array.from({ length: 5 }, (_, index) => ({
        kind: "over_claim" as const,
        detail: `claimed 900 output tokens, 200 counted (${index})`,
        evidence: { claimed: 900, counted: 200 },
      })),
    );
    // A planted difference in the books: a balance one microunit off its entries.
    const treasury = await ensureAccount(gateway.app.database.db, "treasury", "treasury");
    await gateway.app.database.db
      .update(accounts)
      .set({ balance: sql`${accounts.balance} + 1` })
      .where(eq(accounts.id, treasury));

    const first = await runOperatorNotices(gateway.app, state, { now: at(0), holder: "replica-a" });
    // The agent has been away for no time yet: not told.
    expect(first.opened.map((notice) => notice.kind).sort()).toEqual([
      "host_excluded",
      "payout_awaiting_approval",
      "reconcile_difference",
    ]);
    expect(first.opened.find((notice) => notice.kind === "payout_awaiting_approval")?.subject).toBe(payoutId);
    expect(first.opened.find((notice) => notice.kind === "reconcile_difference")?.text).toMatch(/ledger/);
    expect(hooks.received).toHaveLength(3);
    for (const hook of hooks.received) {
      expect(isSignedBy(hook, secret)).toBe(true);
      expect(isSignedBy(hook, "a-different-secret-0123")).toBe(false);
    }
    expect(events().map((event) => event.console_url)).toContain(
      `/dashboard/admin/hosts/${absent.providerId}`,
    );

    // Nothing new: nothing sent again, by this process or another replica's first pass.
    await runOperatorNotices(gateway.app, state, { now: at(30), holder: "replica-a" });
    await runOperatorNotices(gateway.app, replica, { now: at(30), holder: "replica-b" });
    expect(hooks.received).toHaveLength(3);

    // Past the limit, the absent agent is told (the serving host's agent is connected: never).
    const later = await runOperatorNotices(gateway.app, state, { now: at(61), holder: "replica-a" });
    expect(later.opened.map((notice) => [notice.kind, notice.subject])).toEqual([
      ["agent_disconnected", absent.providerId],
    ]);
    expect(hooks.received).toHaveLength(4);

    // Cleared: the payout approved, the books mended, the host suspended (no longer active).
    const approve = await fetch(`${gateway.baseUrl}/v1/admin/payouts/${payoutId}/approve`, {
      method: "POST",
      headers: { authorization: "Bearer test-admin-token" },
    });
    expect(approve.status).toBe(200);
    await gateway.app.database.db
      .update(accounts)
      .set({ balance: sql`${accounts.balance} - 1` })
      .where(eq(accounts.id, treasury));
    const suspend = await fetch(`${gateway.baseUrl}/v1/admin/hosts/${absent.providerId}/suspend`, {
      method: "POST",
      headers: { authorization: "Bearer test-admin-token" },
    });
    expect(suspend.status).toBe(200);
    // Within the reconcile period the difference stays open (no reconcile ran to clear it).
    await runOperatorNotices(gateway.app, state, { now: at(62), holder: "replica-a" });
    expect((await openNotices()).map((row) => row.kind).sort()).toEqual([
      "host_excluded",
      "reconcile_difference",
    ]);
    // The next period's clean reconcile closes it; the excluded host stays told until its record clears.
    await runOperatorNotices(gateway.app, state, { now: at(125), holder: "replica-a" });
    expect((await openNotices()).map((row) => row.kind)).toEqual(["host_excluded"]);
    expect(hooks.received).toHaveLength(4);

    // An agent that was connected goes away: told once its last heartbeat is older than the
    // limit, and the notice says when that was.
    const heartbeat = gateway.marketplace
      .agents()
      .find((agent) => agent.providerId === served.host.providerId)?.lastSeenAt;
    if (heartbeat === undefined) throw new Error("the serving host's agent is not connected");
    served.agent.close();
    await expect
      .poll(() => gateway.marketplace.agents().some((agent) => agent.providerId === served.host.providerId))
      .toBe(false);
    // The gateway records the close as the last time it heard the agent (hosts.agent_last_seen_at).
    const recorded = async () =>
      (
        await gateway.app.database.db
          .select({ at: hosts.agentLastSeenAt })
          .from(hosts)
          .where(eq(hosts.id, served.host.providerId))
      )[0]?.at?.getTime() ?? 0;
    await expect.poll(recorded).toBeGreaterThanOrEqual(heartbeat.getTime());
    const lastHeard = new Date(await recorded());
    const heardPlus = (seconds: number) => new Date(lastHeard.getTime() + seconds * 1000);
    const early = await runOperatorNotices(gateway.app, state, { now: heardPlus(59), holder: "replica-a" });
    expect(early.opened).toEqual([]);
    const away = await runOperatorNotices(gateway.app, state, { now: heardPlus(61), holder: "replica-a" });
    expect(away.opened.map((notice) => [notice.kind, notice.subject])).toEqual([
      ["agent_disconnected", served.host.providerId],
    ]);
    expect(away.opened[0]?.text).toMatch(
      new RegExp(`agent was last heard at ${lastHeard.toISOString().replace("T", " ").slice(0, 19)} UTC`),
    );
    expect(hooks.received).toHaveLength(5);
    expect(events().at(-1)?.text).toBe(away.opened[0]?.text);

    const delivered = await gateway.app.database.db.select().from(operatorNotices);
    expect(delivered.every((row) => row.delivery === "delivered (HTTP 204)")).toBe(true);
  });
});
