import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hostSlashes, hosts, hostTrustEvents } from "../../../lib/db/schema";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { withAgentMarket } from "../../helpers/agent-market";
import { type RunningAgent, startHostileAgent } from "../../helpers/agent-process";
import { type TestGateway, testAdminToken } from "../../helpers/gateway";
import type { MarketplaceFixture } from "../../helpers/marketplace-fixture";

/**
 * Hidden canaries over real HTTP (issue 31, item 1), with hosts as agent processes written from
 * the protocol (tests/helpers/hostile-agent-process.ts) answering from the simulation's fake
 * model, and the centralized fake as the trusted reference that invents a canary's words and
 * scores its answer. Every marketplace job is followed by a canary (CANARY_SHARE=1, no delay) and
 * real answers are not checked here (VERIFY_SHARE=0): canaries alone are the judges.
 */
let gateway: TestGateway;
let market: MarketplaceFixture;
const processes: RunningAgent[] = [];

withAgentMarket({
  env: {
    CANARY_SHARE: "1",
    CANARY_MAX_DELAY_MS: "0",
    VERIFY_SHARE: "0",
    PROVIDER_HEARTBEAT_TIMEOUT_MS: "5000",
  },
  processes,
  started: (started) => {
    ({ gateway, market } = started);
  },
});

const db = () => gateway.app.database.db;

async function modelHost(attack: string, cheatRate?: number) {
  const host = await market.enroll();
  const profile = (await (await host.call("GET", "/v1/host/profile")).json()) as {
    metadata: { enrollment_code: string };
  };
  const agent = startHostileAgent({
    gatewayUrl: gateway.baseUrl,
    enrollmentCode: profile.metadata.enrollment_code,
    attack,
    ...(cheatRate === undefined ? {} : { cheatRate }),
  });
  processes.push(agent);
  await agent.waitFor("ready");
  await expect
    .poll(() => gateway.marketplace.liveOffers().some((offer) => offer.providerId === host.providerId))
    .toBe(true);
  return { host, agent };
}

interface Frame {
  guess: string | null;
  frame: {
    type: string;
    job_id: string;
    model_id: string;
    format: string;
    deadline_ms: number;
    request: Record<string, unknown> & { messages: Array<{ role: string; content: string }> };
  };
}

/** The job frames the agent printed, in the order it received them. */
function framesOf(agent: RunningAgent): Frame[] {
  return agent
    .output()
    .split("\n")
    .filter((line) => line.startsWith("frame "))
    .map((line) => JSON.parse(line.slice("frame ".length)) as Frame);
}

async function kinds(hostId: string): Promise<string[]> {
  const rows = await db()
    .select({ kind: hostTrustEvents.kind })
    .from(hostTrustEvents)
    .where(eq(hostTrustEvents.hostId, hostId));
  return rows.map((row) => row.kind);
}

/** Real jobs of a few shapes, as different callers' clients send them. */
const shapes = [
  (index: number) => ({
    model: "gpt-4o-mini",
    messages: [
      { role: "system", content: "You answer questions about the sea for a sailing school's app." },
      { role: "user", content: `Question ${index}: what should I know about tides before a crossing?` },
    ],
    temperature: 0.7,
    top_p: 0.95,
    // Room for the fake model's whole answer: the agent cuts at a third of the limit in words.
    max_tokens: 900,
    stream: true,
  }),
  (index: number) => ({
    model: "gpt-4o-mini",
    max_tokens: 600,
    temperature: 0,
    messages: [
      { role: "user", content: `Summarise ticket ${index}: the printer on floor 3 jams on duplex jobs.` },
      {
        role: "assistant",
        content: `Ticket ${index}: the floor 3 printer jams when printing on both sides.`,
      },
      { role: "user", content: `Now ticket ${index} in one line for the changelog.` },
    ],
  }),
];

async function realJob(token: string, index: number): Promise<Response> {
  const body = shapes[index % shapes.length]?.(index);
  const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-Pod-Routing-Mode": "marketplace-only" },
    body: JSON.stringify(body),
  });
  await response.text();
  return response;
}

describe("canaries", () => {
  it("a canary reaches the agent as a real job of a real shape, with words no agent was sent before", async () => {
    const { host, agent } = await modelHost("model-honest");
    const token = await gateway.createFundedToken(5_000_000n);
    expect((await realJob(token, 0)).status).toBe(200);
    // The real job, then its canary, drawn from the only shape seen so far: the real job's.
    await expect.poll(() => framesOf(agent).length, { timeout: 20_000 }).toBe(2);
    const [real, canary] = framesOf(agent).map((entry) => entry.frame);
    if (!real || !canary) throw new Error("two frames expected");
    // The frame's fields, the request's fields in their order, the turns and every setting match.
    expect(Object.keys(canary)).toEqual(Object.keys(real));
    expect({ ...canary, job_id: "", request: {} }).toEqual({ ...real, job_id: "", request: {} });
    expect(Object.keys(canary.request)).toEqual(Object.keys(real.request));
    const settings = (request: Record<string, unknown>) => ({ ...request, messages: undefined });
    expect(settings(canary.request)).toEqual(settings(real.request));
    expect(canary.request.messages.map((message) => Object.keys(message))).toEqual(
      real.request.messages.map((message) => Object.keys(message)),
    );
    expect(canary.request.messages.map((message) => message.role)).toEqual(["system", "user"]);
    // Its words are new: neither the real job's nor a template's.
    for (const [index, message] of canary.request.messages.entries()) {
      expect(message.content.length).toBeGreaterThan(0);
      expect(message.content).not.toBe(real.request.messages[index]?.content);
      expect(message.content).not.toMatch(/Repeat exactly this phrase|Write two sentences about/);
    }
    // Its answer was scored under the reference like a checked real answer: a pass, with the evidence.
    await expect.poll(() => kinds(host.providerId)).toContain("canary_pass");
    const [verdict] = await db()
      .select({ evidence: hostTrustEvents.evidence })
      .from(hostTrustEvents)
      .where(and(eq(hostTrustEvents.hostId, host.providerId), eq(hostTrustEvents.kind, "canary_pass")));
    expect(verdict?.evidence).toMatchObject({ model: "gpt-4o-mini", reference: "openai", temperature: 0.7 });
    expect(await verifyLedger(db())).toEqual([]);
  });

  it("an agent that answers honestly whatever it takes for a canary, and cheats on the rest, fails canaries and is excluded, then slashed", async () => {
    // It classifies by every feature it sees: the old templates' shape and words, a replayed
    // prompt, a frame, field order, turns or settings unlike every earlier job's.
    const { host, agent } = await modelHost("model-classifier", 1);
    const caller = await gateway.createFundedToken(5_000_000n);
    for (let index = 0; index < 6; index += 1) {
      const response = await realJob(caller, index);
      if (response.status !== 200 || response.headers.get("x-pod-provider-id") !== host.providerId) break;
    }
    await expect.poll(async () => (await kinds(host.providerId)).includes("canary_fail")).toBe(true);
    await expect.poll(() => gateway.app.routing.reputation.standing(host.providerId)).toBe("excluded");
    await expect
      .poll(
        async () =>
          (await db().select().from(hostSlashes).where(eq(hostSlashes.hostId, host.providerId))).length,
        {
          timeout: 30_000,
        },
      )
      .toBe(1);
    const [row] = await db()
      .select({ status: hosts.status })
      .from(hosts)
      .where(eq(hosts.id, host.providerId));
    expect(row?.status).toBe("suspended");
    // The canaries it took for real jobs (and cheated) are what caught it: their last user turn is
    // the reference's invention, never a caller's.
    const canaries = framesOf(agent).filter((entry) =>
      entry.frame.request.messages.at(-1)?.content.startsWith("Text "),
    );
    expect(canaries.filter((entry) => entry.guess === null).length).toBeGreaterThan(0);
    expect(canaries.map((entry) => entry.guess)).not.toContain("template shape");
    expect(canaries.map((entry) => entry.guess)).not.toContain("unseen shape");
    // The operator reads the record, with the reason in words.
    const trust = await fetch(`${gateway.baseUrl}/v1/admin/hosts/${host.providerId}/trust`, {
      headers: { authorization: `Bearer ${testAdminToken}` },
    });
    const record = (await trust.json()) as { standing: string; reasons: string[] };
    expect(record.standing).toBe("excluded");
    expect(record.reasons.join(" ")).toMatch(/canary/);
    expect(await verifyLedger(db())).toEqual([]);
  });

  it("never flag an honest agent over a run of jobs at temperature 0.7 and 0", async () => {
    const { host, agent } = await modelHost("model-honest");
    const token = await gateway.createFundedToken(20_000_000n);
    for (let index = 0; index < 16; index += 1) {
      const response = await realJob(token, index);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-pod-provider-id")).toBe(host.providerId);
      // Its canary reached the agent and was answered before the next job: canaries at once are
      // bounded (4 a process), and one over the bound would be dropped rather than judged.
      await expect.poll(() => framesOf(agent).length, { timeout: 20_000 }).toBe(2 * (index + 1));
      await expect.poll(() => gateway.marketplace.inFlight(host.providerId)).toBe(0);
    }
    await expect
      .poll(async () => (await kinds(host.providerId)).filter((kind) => kind === "canary_pass").length, {
        timeout: 30_000,
      })
      .toBeGreaterThanOrEqual(12);
    await expect.poll(() => gateway.marketplace.inFlight(host.providerId)).toBe(0);
    expect(await kinds(host.providerId)).not.toContain("canary_fail");
    expect(gateway.app.routing.reputation.standing(host.providerId)).toBe("good");
    const profile = (await (await host.call("GET", "/v1/host/profile")).json()) as {
      reputation: { standing: string; canaries: { checked: number; failed: number } };
    };
    expect(profile.reputation).toMatchObject({ standing: "good", canaries: { failed: 0 } });
    expect(await verifyLedger(db())).toEqual([]);
  });
});
