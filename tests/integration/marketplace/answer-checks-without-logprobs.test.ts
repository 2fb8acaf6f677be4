import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hostTrustEvents } from "../../../lib/db/schema";
import { withAgentMarket } from "../../helpers/agent-market";
import type { RunningAgent } from "../../helpers/agent-process";
import type { TestGateway } from "../../helpers/gateway";
import { connectHostileHost, expectVerificationBooked, slashCount } from "../../helpers/hostile-host";
import type { MarketplaceFixture } from "../../helpers/marketplace-fixture";

/**
 * Answer checks of hosts serving Anthropic's Messages format, against references that give no
 * log-probabilities (issue 31): the centralized fakes refuse the teacher-forced scoring request as
 * OpenAI's API refuses an argument it does not take, and answer from the simulation's fake model,
 * so the gateway checks each answer against the reference's own samples of the same request
 * (lib/canaries/resample-answer.ts). The hosts are agent processes written from the protocol,
 * offering the model in Anthropic's format and answering in its wire format; one sells a model
 * whose only reference is the Anthropic-format fake (no log-probabilities, no `n`). Every answer is
 * checked here (VERIFY_SHARE=1), with 8 samples each; the rates at the defaults are
 * bench/verification-sim.ts --fallback's.
 */
const samples = 8;
let gateway: TestGateway;
let market: MarketplaceFixture;
const processes: RunningAgent[] = [];

withAgentMarket({
  env: {
    VERIFY_SHARE: "1",
    VERIFY_RESAMPLES: String(samples),
    CANARY_SHARE: "0",
    PROVIDER_HEARTBEAT_TIMEOUT_MS: "5000",
  },
  processes,
  prepare: (started) => {
    for (const reference of [started.openai, started.openrouter, started.anthropic]) {
      reference.setLogprobs(false);
      reference.setVoice("model");
    }
  },
  started: (started) => {
    ({ gateway, market } = started);
  },
});

async function events(providerId: string, kind: string) {
  return gateway.app.database.db
    .select({ evidence: hostTrustEvents.evidence, requestId: hostTrustEvents.requestId })
    .from(hostTrustEvents)
    .where(and(eq(hostTrustEvents.hostId, providerId), eq(hostTrustEvents.kind, kind)));
}

/**
 * One real job, every other one in Anthropic's Messages format and the rest in OpenAI's (both
 * reach the host in its own format), streamed or not; the route that served it.
 */
async function job(
  token: string,
  index: number,
  temperature: number,
  model = "gpt-4o-mini",
  ignore: string[] = [],
): Promise<string | null> {
  const messages = index % 2 === 0;
  const question = `Question ${index}: what should I know about tides?`;
  const system = "You are a careful assistant.";
  const response = await fetch(
    `${gateway.baseUrl}/proxy/${token}/v1/${messages ? "messages" : "chat/completions"}`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model,
        max_tokens: 600,
        temperature,
        // The cheapest source first: the marketplace host, with the centralized sources behind it.
        provider: { sort: "price", ...(ignore.length > 0 ? { ignore } : {}) },
        stream: index % 4 < 2,
        ...(messages
          ? { system, messages: [{ role: "user", content: question }] }
          : {
              messages: [
                { role: "system", content: system },
                { role: "user", content: question },
              ],
            }),
      }),
    },
  );
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get("x-pod-route");
}

/** What the references were asked: scoring requests (refused) and sampling requests. */
function referenceRequests() {
  const requests = [...gateway.openai.requests, ...gateway.openrouter.requests].filter(
    (request) => request.path === "/v1/chat/completions",
  );
  return {
    scoring: requests.filter((request) => request.body.echo === true),
    sampling: requests.filter((request) => request.body.n === samples),
  };
}

interface ResampledCheck {
  method: string;
  reference: string;
  samples: number;
  e_value: number;
  host_similarity: number;
  reference_similarity: number;
  request_id: string;
  statistic: number;
  threshold: number;
}

describe("answer checks without log-probabilities, of hosts in Anthropic's format", () => {
  it("an honest host sampling at temperature 0.7 is checked against the reference's samples, booked, and stays in good standing", async () => {
    const host = await connectHostileHost(gateway, market, processes, "anthropic-honest");
    const token = await gateway.createFundedToken(50_000_000n);
    const jobs = 40;
    for (let index = 0; index < jobs; index += 1) expect(await job(token, index, 0.7)).toBe("marketplace");
    await expect.poll(async () => (await events(host.providerId, "answer_checked")).length).toBe(jobs);
    const checks = (await events(host.providerId, "answer_checked")).map(
      (check) => check.evidence as unknown as ResampledCheck,
    );
    for (const check of checks) {
      expect(check).toMatchObject({ method: "resampled", samples });
      expect(["openai", "openrouter"]).toContain(check.reference);
      // 0, or (k + 1)/m for one of m answers tied as the odd one out.
      const values = [0, ...Array.from({ length: samples + 1 }, (_, m) => (samples + 1) / (m + 1))];
      expect(values.some((value) => Math.abs(value - check.e_value) < 1e-3)).toBe(true);
    }
    expect(await events(host.providerId, "answer_substitution")).toEqual([]);
    expect(gateway.app.routing.reputation.standing(host.providerId)).toBe("good");
    // Every job reached the agent in Anthropic's format, whichever format its caller used.
    const output = processes.at(-1)?.output() ?? "";
    expect(output.match(/"format":"anthropic"/g)?.length).toBe(jobs);
    expect(output).not.toContain('"format":"openai"');
    // The reference refused teacher-forced scoring (it is then asked for samples only), and
    // was sent the job's request in its own format: the system prompt as the first message.
    const asked = referenceRequests();
    expect(asked.scoring.length).toBeGreaterThan(0);
    expect(asked.scoring.length).toBeLessThan(jobs / 4);
    expect(asked.sampling.length).toBe(jobs);
    for (const request of asked.sampling) {
      expect(request.body).toMatchObject({ temperature: 0.7, stream: false, max_completion_tokens: 600 });
      expect((request.body.messages as Array<{ role: string }>).map((message) => message.role)).toEqual([
        "system",
        "user",
      ]);
    }
    // What the samples cost is on the books, against this host's account.
    await expectVerificationBooked(gateway, host.providerId, jobs);
  });

  it("a host answering from a smaller model on 80% of its greedy jobs is excluded and slashed, with the evidence", async () => {
    const host = await connectHostileHost(gateway, market, processes, "anthropic-smaller", {
      cheatRate: 0.8,
    });
    const token = await gateway.createFundedToken(50_000_000n);
    // Checks run after each answer: the verdict may land while the next job is routed.
    let served = 0;
    for (let index = 0; index < 200; index += 1) {
      if ((await job(token, index, 0)) !== "marketplace") break;
      served += 1;
    }
    expect(served).toBeLessThan(200);
    expect(processes.at(-1)?.output()).not.toContain('"format":"openai"');
    await expect
      .poll(async () => (await events(host.providerId, "answer_substitution")).length)
      .toBeGreaterThan(0);
    await expect.poll(() => gateway.app.routing.reputation.standing(host.providerId)).toBe("excluded");
    const [verdict] = await events(host.providerId, "answer_substitution");
    const evidence = verdict?.evidence as unknown as { last_check: ResampledCheck };
    expect(evidence.last_check).toMatchObject({ method: "resampled", samples });
    expect(evidence.last_check.request_id).toMatch(/^req_/);
    expect(evidence.last_check.statistic).toBeGreaterThanOrEqual(evidence.last_check.threshold);
    // The checks behind it: its answers were the odd one out among the reference's samples far
    // more often than the 1 in 9 an honest host's are.
    const checks = (await events(host.providerId, "answer_checked")).map(
      (check) => check.evidence as unknown as ResampledCheck,
    );
    const odd = checks.filter((check) => check.e_value > 0).length;
    expect(odd / checks.length).toBeGreaterThan(2 / (samples + 1));
    // Proven substitution is slashed, as with canaries.
    await expect.poll(() => slashCount(gateway, host.providerId)).toBe(1);
  });

  it("a host whose model's only reference is in Anthropic's format is checked against its samples, one request each, and excluded when it substitutes", async () => {
    const model = "claude-haiku-4-5";
    const host = await connectHostileHost(gateway, market, processes, "anthropic-smaller", {
      cheatRate: 0.8,
      model,
    });
    const token = await gateway.createFundedToken(50_000_000n);
    let served = 0;
    for (let index = 0; index < 200; index += 1) {
      // OpenRouter (OpenAI's format) serves the model too: the caller keeps its job from it.
      if ((await job(token, index, 0, model, ["openrouter"])) !== "marketplace") break;
      served += 1;
    }
    expect(served).toBeLessThan(200);
    await expect.poll(() => gateway.app.routing.reputation.standing(host.providerId)).toBe("excluded");
    const [verdict] = await events(host.providerId, "answer_substitution");
    const evidence = verdict?.evidence as unknown as { reference: string; last_check: ResampledCheck };
    expect(evidence.reference).toBe("anthropic");
    expect(evidence.last_check).toMatchObject({ method: "resampled", samples });
    // Anthropic's format has no `n`: each sample is a request of its own, in that format, the
    // greedy jobs sampled at the scoring floor; no scoring request was ever sent to it.
    const checked = (await events(host.providerId, "answer_checked")).length;
    const sampling = gateway.anthropic.requests.filter(
      (request) => request.path === "/v1/messages" && request.body.temperature === 0.3,
    );
    expect(sampling.length).toBeGreaterThanOrEqual(checked * samples);
    for (const request of sampling) {
      expect(request.body).toMatchObject({ stream: false, max_tokens: 600, system: expect.anything() });
      expect(request.body.n).toBeUndefined();
      expect(request.body.echo).toBeUndefined();
    }
  });
});
