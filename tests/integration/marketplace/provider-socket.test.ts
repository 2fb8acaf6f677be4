import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureAccount, getAccountBalance } from "../../../lib/ledger/accounts";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { createMarketplaceFixture, type MarketplaceFixture } from "../../helpers/marketplace-fixture";
import {
  b64,
  connectScriptedAgent,
  newAgentKey,
  openAiDelta,
  openAiUsage,
  type ScriptedAgent,
  textOfTokens,
} from "../../helpers/scripted-agent";

let gateway: TestGateway;
let market: MarketplaceFixture;
const agents: ScriptedAgent[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({
    env: { PROVIDER_JOB_DEADLINE_MS: "3000", PROVIDER_HEARTBEAT_TIMEOUT_MS: "800" },
  });
  market = createMarketplaceFixture(gateway);
});
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.close();
  await market.cleanup();
});
afterAll(async () => {
  await gateway.close();
});

const marketOnly = { "X-Pod-Routing-Mode": "marketplace-only" };
const openai = (token: string) =>
  new OpenAI({ baseURL: `${gateway.baseUrl}/proxy/${token}/v1`, apiKey: "pod", maxRetries: 0 });

async function enrollmentCodeOf(hostToken: string): Promise<string> {
  const response = await fetch(`${gateway.baseUrl}/v1/host/profile`, {
    headers: { authorization: `Bearer ${hostToken}` },
  });
  const body = (await response.json()) as { metadata: { enrollment_code: string } };
  return body.metadata.enrollment_code;
}

/** An enrolled, activated host with a scripted agent connected and offering gpt-4o-mini. */
async function connectedAgent(price = { input: 100_000, output: 400_000 }) {
  const host = await market.enroll();
  const key = newAgentKey();
  const agent = await connectScriptedAgent(gateway.baseUrl, {
    key,
    enrollmentCode: await enrollmentCodeOf(host.hostToken),
  });
  agents.push(agent);
  const ok = await agent.next("auth_ok");
  expect(ok.provider_id).toBe(host.providerId);
  agent.send({
    type: "capabilities",
    models: [
      { model_id: "gpt-4o-mini", input_per_1m: price.input, output_per_1m: price.output, max_concurrent: 2 },
    ],
    limits: { max_concurrent_total: 4 },
  });
  const ack = await agent.next("capabilities_ack");
  agent.send({ type: "heartbeat", tokens_per_sec_p50: 0 });
  return { host, key, agent, ack, price };
}

/**
 * Beats for each agent and waits until routing sees them all live: with this file's 800 ms
 * heartbeat window, enrolling a second agent on a loaded machine can outlast the first one's beat.
 */
async function allLive(...connected: Array<{ agent: ScriptedAgent; host: { providerId: string } }>) {
  for (const { agent } of connected) agent.send({ type: "heartbeat" });
  await expect
    .poll(() => {
      const live = new Set(gateway.marketplace.liveOffers().map((offer) => offer.providerId));
      return connected.every(({ host }) => live.has(host.providerId));
    })
    .toBe(true);
}

async function providerBalance(providerId: string): Promise<bigint> {
  const id = await ensureAccount(gateway.app.database.db, "provider", providerId);
  return (await getAccountBalance(gateway.app.database.db, id)).balance;
}

describe("agent authentication", () => {
  it("a forged signature is refused with auth_failed and a close", async () => {
    const host = await market.enroll();
    const agent = await connectScriptedAgent(gateway.baseUrl, {
      key: newAgentKey(),
      enrollmentCode: await enrollmentCodeOf(host.hostToken),
      forge: true,
    });
    const failed = await agent.next("auth_failed");
    expect(String(failed.reason)).toMatch(/bad signature/);
    expect((await agent.closed).code).toBe(4001);
    expect(gateway.marketplace.liveOffers()).toEqual([]);
  });

  it("an unknown key without an enrollment code, or a code bound to another key, is refused", async () => {
    const stranger = await connectScriptedAgent(gateway.baseUrl, { key: newAgentKey() });
    expect(String((await stranger.next("auth_failed")).reason)).toMatch(/unknown agent key/);
    const { host } = await connectedAgent();
    const thief = await connectScriptedAgent(gateway.baseUrl, {
      key: newAgentKey(),
      enrollmentCode: await enrollmentCodeOf(host.hostToken),
    });
    expect(String((await thief.next("auth_failed")).reason)).toMatch(/already bound/);
  });

  it("a second agent with the same identity takes over and the first is closed, told not to return", async () => {
    const first = await connectedAgent();
    const second = await connectScriptedAgent(gateway.baseUrl, { key: first.key });
    agents.push(second);
    expect((await second.next("auth_ok")).provider_id).toBe(first.host.providerId);
    second.send({
      type: "capabilities",
      models: [{ model_id: "gpt-4o-mini", input_per_1m: 90_000, output_per_1m: 300_000, max_concurrent: 1 }],
    });
    const closed = await first.agent.closed;
    expect(closed).toMatchObject({ code: 4002 });
    expect(closed.reason).toMatch(/same identity/);
    expect(gateway.marketplace.liveOffers()).toMatchObject([
      { providerId: first.host.providerId, inputPer1m: 90_000n, freeSlots: 1 },
    ]);
  });
});

describe("capabilities", () => {
  it("a price above the centralized cap is refused with the cap in the message; the rest is served", async () => {
    const host = await market.enroll();
    const agent = await connectScriptedAgent(gateway.baseUrl, {
      key: newAgentKey(),
      enrollmentCode: await enrollmentCodeOf(host.hostToken),
    });
    agents.push(agent);
    await agent.next("auth_ok");
    agent.send({
      type: "capabilities",
      models: [
        { model_id: "gpt-4o-mini", input_per_1m: 150_001, output_per_1m: 600_000, max_concurrent: 1 },
        { model_id: "gpt-4o", input_per_1m: 1_000_000, output_per_1m: 5_000_000, max_concurrent: 1 },
        { model_id: "no-such-model", input_per_1m: 1, output_per_1m: 1, max_concurrent: 1 },
      ],
    });
    const ack = await agent.next("capabilities_ack");
    expect(ack.accepted).toEqual(["gpt-4o"]);
    const rejected = ack.rejected as Array<{ model_id: string; reason: string }>;
    expect(rejected[0]).toMatchObject({ model_id: "gpt-4o-mini" });
    expect(rejected[0]?.reason).toContain(
      "the cap (cheapest centralized price) is input 150000 / output 600000",
    );
    expect(rejected[1]?.reason).toMatch(/unknown model/);
    expect(gateway.marketplace.liveOffers().map((offer) => offer.modelId)).toEqual(["gpt-4o"]);
  });

  it("a missed heartbeat window takes the agent out of routing; a beat brings it back", async () => {
    const { agent } = await connectedAgent();
    expect(gateway.marketplace.liveOffers()).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(gateway.marketplace.liveOffers()).toEqual([]);
    agent.send({ type: "heartbeat" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gateway.marketplace.liveOffers()).toHaveLength(1);
  });
});

describe("jobs", () => {
  it("relays chunks as they arrive and bills the gateway's count, not the agent's claim, 80/20", async () => {
    const { host, agent, price } = await connectedAgent();
    const token = await gateway.createFundedToken(1_000_000n);
    const pending = openai(token).chat.completions.create(
      { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true },
      { headers: marketOnly },
    );
    const job = await agent.next("job");
    expect(job).toMatchObject({ model_id: "gpt-4o-mini", format: "openai", deadline_ms: 3000 });
    expect((job.request as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
    agent.send({ type: "job_chunk", job_id: job.job_id, data: b64(openAiDelta("Hel")), status: 200 });
    const iterator = (await pending)[Symbol.asyncIterator]();
    // The first delta reaches the caller before the agent sends anything else.
    const first = await iterator.next();
    expect(first.value?.choices[0]?.delta.content).toBe("Hel");
    agent.send({
      type: "job_chunk",
      job_id: job.job_id,
      data: b64(`${openAiDelta("lo")}${openAiUsage(7, 2)}data: [DONE]\n\n`),
    });
    // The agent claims far more tokens than its stream reported.
    agent.send({
      type: "job_done",
      job_id: job.job_id,
      tokens: { input: 9000, output: 9000, input_tokens: 9000, output_tokens: 9000 },
    });
    let text = "Hel";
    for (let step = await iterator.next(); !step.done; step = await iterator.next())
      text += step.value.choices[0]?.delta.content ?? "";
    expect(text).toBe("Hello");
    const cost = (7n * BigInt(price.input) + 2n * BigInt(price.output) + 999_999n) / 1_000_000n;
    await expect.poll(() => gateway.balanceOf(token).then((b) => b.balance)).toBe(1_000_000n - cost);
    expect(await providerBalance(host.providerId)).toBe((cost * 80n) / 100n);
  });

  it("an agent that never answers misses the deadline: cancelled, and the caller gets an error", async () => {
    const { agent } = await connectedAgent();
    const token = await gateway.createFundedToken(1_000_000n);
    const started = Date.now();
    const call = openai(token).chat.completions.create(
      { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
      { headers: marketOnly },
    );
    const job = await agent.next("job");
    await expect(call).rejects.toMatchObject({ status: 502 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    expect(await agent.next("job_cancel")).toEqual({ type: "job_cancel", job_id: job.job_id });
    expect((await gateway.balanceOf(token)).held).toBe(0n);
  });

  it("job_error before the first byte fails over to another agent", async () => {
    const broken = await connectedAgent({ input: 50_000, output: 100_000 });
    const working = await connectedAgent({ input: 100_000, output: 400_000 });
    const token = await gateway.createFundedToken(1_000_000n);
    await allLive(broken, working);
    const call = openai(token)
      .chat.completions.create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
        { headers: marketOnly },
      )
      .withResponse();
    const first = await broken.agent.next("job");
    broken.agent.send({
      type: "job_error",
      job_id: first.job_id,
      error_code: "backend_unreachable",
      message: "connection refused",
    });
    const second = await working.agent.next("job");
    const body = {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    };
    sendJsonReply(working.agent, String(second.job_id), body);
    const { data, response } = await call;
    expect(data.choices[0]?.message.content).toBe("ok");
    expect(response.headers.get("x-pod-provider-id")).toBe(working.host.providerId);
  });

  it("the agent dying before the first byte fails over to another agent; the dead one earns nothing", async () => {
    const dying = await connectedAgent({ input: 50_000, output: 100_000 });
    const working = await connectedAgent({ input: 100_000, output: 400_000 });
    const token = await gateway.createFundedToken(1_000_000n);
    await allLive(dying, working);
    const call = openai(token)
      .chat.completions.create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: textOfTokens(1000, "hi") }] },
        { headers: marketOnly },
      )
      .withResponse();
    // The cheaper agent gets the job first, then its connection drops without a byte sent.
    await dying.agent.next("job");
    dying.agent.ws.terminate();
    const second = await working.agent.next("job");
    sendJsonReply(working.agent, String(second.job_id), {
      id: "chatcmpl-2",
      object: "chat.completion",
      created: 1,
      model: "gpt-4o-mini",
      choices: [
        { index: 0, message: { role: "assistant", content: textOfTokens(1000) }, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 },
    });
    const { data, response } = await call;
    expect(data.choices[0]?.message.content).toBe(textOfTokens(1000));
    expect(response.headers.get("x-pod-provider-id")).toBe(working.host.providerId);
    await expect.poll(() => gateway.balanceOf(token).then((b) => b.held)).toBe(0n);
    expect(await providerBalance(dying.host.providerId)).toBe(0n);
    // 1000 × 100000 + 1000 × 400000 per 1M = 500 microunits; 80% to the agent that served.
    expect(await providerBalance(working.host.providerId)).toBe(400n);
  });

  it("the agent dying mid-stream ends the stream with an in-band error, billed for what was streamed", async () => {
    const { host, agent } = await connectedAgent();
    const token = await gateway.createFundedToken(1_000_000n);
    const pending = fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...marketOnly },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        stream: true,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    const job = await agent.next("job");
    agent.send({ type: "job_chunk", job_id: job.job_id, data: b64(openAiDelta("a") + openAiDelta("b")) });
    const response = await pending;
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    agent.ws.terminate();
    for (let step = await reader.read(); !step.done; step = await reader.read())
      text += decoder.decode(step.value);
    expect(text).toContain('"content":"a"');
    expect(text).toMatch(/"error"/);
    await expect.poll(() => gateway.balanceOf(token).then((b) => b.held)).toBe(0n);
    const charged = 1_000_000n - (await gateway.balanceOf(token)).balance;
    expect(charged).toBeGreaterThan(0n);
    expect(await providerBalance(host.providerId)).toBe((charged * 80n) / 100n);
  });

  it("a caller who disconnects gets the job cancelled at the agent", async () => {
    const { agent } = await connectedAgent();
    const token = await gateway.createFundedToken(1_000_000n);
    const controller = new AbortController();
    const pending = fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...marketOnly },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        stream: true,
        messages: [{ role: "user", content: "hi" }],
      }),
      signal: controller.signal,
    });
    const job = await agent.next("job");
    agent.send({ type: "job_chunk", job_id: job.job_id, data: b64(openAiDelta("a")) });
    await (await pending).body?.getReader().read();
    controller.abort();
    expect(await agent.next("job_cancel")).toEqual({ type: "job_cancel", job_id: job.job_id });
    await expect.poll(() => gateway.balanceOf(token).then((b) => b.held)).toBe(0n);
  });
});

function sendJsonReply(agent: ScriptedAgent, jobId: string, body: unknown): void {
  agent.send({
    type: "job_chunk",
    job_id: jobId,
    data: b64(JSON.stringify(body)),
    status: 200,
    content_type: "application/json",
  });
  agent.send({ type: "job_done", job_id: jobId });
}
