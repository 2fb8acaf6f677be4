import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAccount, getAccountBalance, systemAccounts } from "../../../lib/ledger/accounts";
import { editConfig, podAgent, type RunningAgent, startAgent } from "../../helpers/agent-process";
import { freePort } from "../../helpers/free-port";
import { startTestGateway, type TestGateway, testAdminToken } from "../../helpers/gateway";
import { writeRandomLlamaGguf } from "../../helpers/random-gguf";

/**
 * The agent's built-in backend: `pod-agent run` as a child process serving a GGUF file
 * in-process through node-llama-cpp. The model is a tiny llama with random weights written
 * at test time (tests/helpers/random-gguf.ts), so its text is gibberish: these tests check the
 * plumbing (status, wire shapes, usage, settlement), never the prose.
 */
let gateway: TestGateway | undefined;
let agent: RunningAgent | undefined;
let configPath: string;
let providerId: string;
let metricsPort: number;
/** Set when node-llama-cpp cannot load here: every test skips with it. */
let unavailable: string | undefined;

/** A catalog id the random model is sold as (the gateway sells catalog models only). */
const model = "llama-3.3-70b-instruct";
const price = { input_per_1m: 100_000, output_per_1m: 300_000 };
const marketOnly = { "X-Pod-Routing-Mode": "marketplace-only" };

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "pod-agent-gguf-"));
  const modelPath = writeRandomLlamaGguf(join(dir, "random-llama.gguf"));
  gateway = await startTestGateway();
  configPath = join(dir, "config.json");
  const output = await podAgent(
    [
      "enroll",
      "--config",
      configPath,
      "--gateway",
      gateway.baseUrl,
      "--name",
      "gguf host",
      "--wallet",
      "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS",
    ],
    { POD_AGENT_IDENTITY: join(dir, "identity.key") },
  );
  providerId = /provider_id: (\S+)/.exec(output)?.[1] ?? "";
  metricsPort = await freePort();
  editConfig(configPath, (config) => {
    config.identity_path = join(dir, "identity.key");
    config.backends = [
      { kind: "gguf", model_path: modelPath, model_id: model, context_size: 2048, threads: 1 },
    ];
    config.pricing = { models: { [model]: price } };
    config.metrics_addr = `127.0.0.1:${metricsPort}`;
  });
  // validate loads the model: if llama.cpp cannot run here, say why and skip.
  const validation = await podAgent(["validate", "--config", configPath]).catch(
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  if (!validation.includes(`ok: ${model} on gguf`)) {
    unavailable = `node-llama-cpp cannot serve the test model here: ${validation.trim()}`;
    console.warn(`skipping the GGUF backend tests: ${unavailable}`);
    return;
  }
  const activated = await fetch(`${gateway.baseUrl}/v1/admin/hosts/${providerId}/activate`, {
    method: "POST",
    headers: { authorization: `Bearer ${testAdminToken}` },
  });
  expect(activated.status).toBe(200);
  agent = startAgent(configPath);
  await agent.waitFor(`serving ${model}`, 60_000);
}, 120_000);

afterAll(async () => {
  await agent?.stop();
  await gateway?.close();
});

function started(): TestGateway {
  if (!gateway) throw new Error("the gateway did not start");
  return gateway;
}

async function balanceOf(kind: "provider" | "treasury", ref: string): Promise<bigint> {
  const db = started().app.database.db;
  return (await getAccountBalance(db, await ensureAccount(db, kind, ref))).balance;
}

describe("pod-agent with the built-in GGUF backend (node-llama-cpp)", () => {
  it("validate loads the model file and names what it sells", async (context) => {
    if (unavailable) context.skip(unavailable);
    const output = await podAgent(["validate", "--config", configPath]);
    expect(output).toMatch(new RegExp(`ok: ${model} on gguf .*random-llama\\.gguf at 100000/300000`));
    expect(output).toContain("valid");
    expect(agent?.output()).toMatch(/loaded llama-3\.3-70b-instruct \(.*context 2048 tokens\)/);
  });

  it("serves marketplace-only requests in both dialects, streamed and not, with usage, settled 80/20", async (context) => {
    if (unavailable) context.skip(unavailable);
    const gateway = started();
    const token = await gateway.createFundedToken(10_000_000n);
    const providerBefore = await balanceOf("provider", providerId);
    const treasuryBefore = await balanceOf("treasury", systemAccounts.treasury.ref);
    const openai = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const anthropic = new Anthropic({
      baseURL: `${gateway.baseUrl}/proxy/${token}`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const messages = [{ role: "user" as const, content: "Say something." }];

    // OpenAI, not streamed: one chat.completion with usage.
    const { data, response } = await openai.chat.completions
      .create({ model, max_tokens: 8, messages }, { headers: marketOnly })
      .withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get("x-pod-route")).toBe("marketplace");
    expect(response.headers.get("x-pod-provider-id")).toBe(providerId);
    expect(data).toMatchObject({ object: "chat.completion", model });
    expect(data.choices).toHaveLength(1);
    expect(data.choices[0]?.message.role).toBe("assistant");
    expect(typeof data.choices[0]?.message.content).toBe("string");
    expect(["length", "stop"]).toContain(data.choices[0]?.finish_reason);
    expect(data.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(data.usage?.completion_tokens).toBeGreaterThan(0);
    expect(data.usage?.completion_tokens).toBeLessThanOrEqual(8);

    // OpenAI, streamed: chat.completion.chunk frames, a finish reason, then the usage chunk.
    const stream = await openai.chat.completions.create(
      { model, max_tokens: 8, stream: true, stream_options: { include_usage: true }, messages },
      { headers: marketOnly },
    );
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk).toMatchObject({ object: "chat.completion.chunk", model });
    expect(chunks.some((chunk) => (chunk.choices[0]?.delta.content ?? "").length > 0)).toBe(true);
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(true);
    const usage = chunks.at(-1)?.usage;
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    expect(usage?.completion_tokens).toBeGreaterThan(0);

    // Anthropic, not streamed: the gateway translates the agent's OpenAI answer.
    const message = await anthropic.messages.create(
      { model, max_tokens: 8, messages },
      { headers: marketOnly },
    );
    expect(message).toMatchObject({ type: "message", role: "assistant" });
    expect(message.content[0]?.type).toBe("text");
    expect(["max_tokens", "end_turn"]).toContain(message.stop_reason);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);

    // Anthropic, streamed: the event sequence, with output tokens in message_delta.
    const events = await anthropic.messages.create(
      { model, max_tokens: 8, stream: true, messages },
      { headers: marketOnly },
    );
    const types: string[] = [];
    let outputTokens = 0;
    for await (const event of events) {
      types.push(event.type);
      if (event.type === "message_delta") outputTokens = event.usage.output_tokens;
    }
    expect(types[0]).toBe("message_start");
    expect(types).toContain("content_block_delta");
    expect(types.at(-1)).toBe("message_stop");
    expect(outputTokens).toBeGreaterThan(0);

    await expect.poll(() => gateway.balanceOf(token).then((b) => b.held)).toBe(0n);
    const charged = 10_000_000n - (await gateway.balanceOf(token)).balance;
    expect(charged).toBeGreaterThan(0n);
    const providerGain = (await balanceOf("provider", providerId)) - providerBefore;
    const treasuryGain = (await balanceOf("treasury", systemAccounts.treasury.ref)) - treasuryBefore;
    expect(providerGain + treasuryGain).toBe(charged);
    // 80% per request, rounded down per request: four requests lose at most 4 microunits.
    expect(providerGain).toBeLessThanOrEqual((charged * 80n) / 100n);
    expect(providerGain).toBeGreaterThanOrEqual((charged * 80n) / 100n - 4n);

    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/pod_agent_jobs_total [4-9]/);
    expect(metrics).toContain("pod_agent_backend_ok 1");
  });

  it("a prompt longer than the context is a 400 naming the context size, and costs nothing", async (context) => {
    if (unavailable) context.skip(unavailable);
    const gateway = started();
    const token = await gateway.createFundedToken(10_000_000n);
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...marketOnly },
      body: JSON.stringify({
        model,
        max_tokens: 4,
        // Two tokens per "a " in this vocabulary: well past the 2048-token context.
        messages: [{ role: "user", content: "a ".repeat(1500) }],
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; type: string } };
    expect(body.error.message).toMatch(/the prompt is \d+ tokens; this model's context is 2048 tokens/);
    await expect.poll(() => gateway.balanceOf(token).then((b) => b.held)).toBe(0n);
    expect((await gateway.balanceOf(token)).balance).toBe(10_000_000n);
  });

  it("a caller who disconnects mid-stream stops the generation; the next job is served", async (context) => {
    if (unavailable) context.skip(unavailable);
    const gateway = started();
    const token = await gateway.createFundedToken(10_000_000n);
    const jobsDone = async () =>
      Number(
        /pod_agent_jobs_total (\d+)/.exec(
          await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text()),
        )?.[1],
      );
    const doneBefore = await jobsDone();
    const controller = new AbortController();
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...marketOnly },
      body: JSON.stringify({
        model,
        stream: true,
        // About a second of generation here: the cancel arrives long before it could finish.
        max_tokens: 1900,
        messages: [{ role: "user", content: "Go on for a while." }],
      }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    await response.body?.getReader().read();
    controller.abort();
    await expect.poll(() => gateway.balanceOf(token).then((b) => b.held)).toBe(0n);
    // The one context sequence is free again: another request is answered.
    const again = await new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    }).chat.completions.create(
      { model, max_tokens: 4, messages: [{ role: "user", content: "hi" }] },
      { headers: marketOnly },
    );
    expect(again.usage?.completion_tokens).toBeGreaterThan(0);
    // The cancelled job never counted as done: only the second one did.
    expect(await jobsDone()).toBe(doneBefore + 1);
  });
});
