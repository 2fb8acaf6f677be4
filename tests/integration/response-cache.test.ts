import Anthropic from "@anthropic-ai/sdk";
import type { TransactionRow } from "@pod-gateway/contracts/activity";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { testRedis } from "../helpers/services";

/**
 * The response cache through the official SDKs: a repeatable request that asks for it is
 * answered once by the upstream and then from the cache, in each wire format, streamed or not,
 * billed at the documented share of the first answer's cost; and never across accounts.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

const openai = (token: string, headers: Record<string, string> = { "X-Pod-Cache": "on" }) =>
  new OpenAI({
    baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
    apiKey: "pod",
    maxRetries: 0,
    defaultHeaders: headers,
  });

const upstreamCalls = () =>
  gateway.openai.requests.length + gateway.openrouter.requests.length + gateway.anthropic.requests.length;

async function chat(
  token: string,
  prompt: string,
  extra: Record<string, unknown> = {},
  headers?: Record<string, string>,
) {
  const before = upstreamCalls();
  const { data, response } = await openai(token, headers)
    .chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: prompt }],
      max_tokens: 50,
      temperature: 0,
      ...extra,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming)
    .withResponse();
  return {
    text: data.choices[0]?.message.content,
    cache: response.headers.get("x-pod-cache"),
    cost: BigInt(response.headers.get("x-pod-cost-microunits") ?? "-1"),
    route: response.headers.get("x-pod-route"),
    upstream: upstreamCalls() - before,
  };
}

async function transactions(token: string): Promise<TransactionRow[]> {
  const response = await fetch(`${gateway.baseUrl}/proxy/${token}/transactions`);
  return ((await response.json()) as { transactions: TransactionRow[] }).transactions;
}

async function createKey(token: string, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${gateway.baseUrl}/proxy/${token}/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ label: "cache test", ...body }),
  });
  const issued = (await response.json()) as { api_key: string; key: { response_cache: boolean } };
  expect(issued.key.response_cache).toBe(body.response_cache === true);
  return issued.api_key;
}

describe("response cache", () => {
  it("answers a repeated temperature-0 chat request from the cache, streamed or not, billed 10% of the first", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const prompt = "cache me [fake:tokens=400]";
    const miss = await chat(token, prompt, { max_tokens: 500 });
    expect(miss).toMatchObject({ cache: "miss", route: "centralized", upstream: 1 });
    expect(miss.cost).toBeGreaterThan(0n);
    const hit = await chat(token, prompt, { max_tokens: 500 });
    expect(hit).toMatchObject({ cache: "hit", route: "cache", upstream: 0, text: miss.text });
    const share = (miss.cost * 10n + 99n) / 100n;
    expect(share).toBeGreaterThan(10n);
    expect(hit.cost).toBe(share);

    // The same request streamed: a well-formed event stream the SDK reads to its end.
    const before = upstreamCalls();
    const { data: stream, response } = await openai(token)
      .chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: prompt }],
        max_tokens: 500,
        temperature: 0,
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    let text = "";
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(response.headers.get("x-pod-cache")).toBe("hit");
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(upstreamCalls()).toBe(before);
    expect(text).toBe(miss.text);
    expect(finish).toBe("stop");
    expect(usage?.completion_tokens).toBeGreaterThan(0);

    // In the ledger: the first request at its cost, each hit at its share, on the route "cache".
    const rows = (await transactions(token)).filter((row) => row.kind === "inference");
    const cached = rows.filter((row) => row.route === "cache");
    expect(cached).toHaveLength(2);
    for (const row of cached) expect(row.amount_microunits).toBe(-Number(share));
    expect(rows.filter((row) => row.route === "centralized")).toHaveLength(1);
    const balance = await gateway.balanceOf(token);
    expect(balance.balance).toBe(10_000_000n - miss.cost - 2n * share);
  });

  it("keeps a streamed miss and answers it whole", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const prompt = "streamed first [fake:tokens=7]";
    const stream = await openai(token).chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: prompt }],
      max_tokens: 50,
      seed: 7,
      stream: true,
    });
    let streamed = "";
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    // The miss settles (and is kept) as its stream ends; the next request looks it up.
    const hit = await chat(token, prompt, { seed: 7, temperature: undefined });
    expect(hit).toMatchObject({ cache: "hit", upstream: 0, text: streamed });
  });

  it("answers Anthropic's SDK from the cache, whole and streamed", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const anthropic = new Anthropic({
      baseURL: `${gateway.baseUrl}/proxy/${token}`,
      apiKey: "pod",
      maxRetries: 0,
      defaultHeaders: { "X-Pod-Cache": "on" },
    });
    const params = {
      model: "claude-haiku-4-5",
      max_tokens: 40,
      temperature: 0,
      messages: [{ role: "user" as const, content: "anthropic cache [fake:tokens=5]" }],
    };
    const first = await anthropic.messages.create(params).withResponse();
    expect(first.response.headers.get("x-pod-cache")).toBe("miss");
    const before = upstreamCalls();
    const second = await anthropic.messages.create(params).withResponse();
    expect(second.response.headers.get("x-pod-cache")).toBe("hit");
    expect(second.data.content).toEqual(first.data.content);
    expect(second.data.stop_reason).toBe(first.data.stop_reason);
    const streamed = await anthropic.messages.stream(params).finalMessage();
    expect(streamed.content).toEqual(first.data.content);
    expect(streamed.usage.output_tokens).toBe(first.data.usage.output_tokens);
    expect(upstreamCalls()).toBe(before);
  });

  it("answers the Responses API from the cache, with a fresh response id each time", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const params = { model: "gpt-4o-mini", input: "responses cache [fake:tokens=6]", temperature: 0 };
    const first = await openai(token).responses.create(params).withResponse();
    expect(first.response.headers.get("x-pod-cache")).toBe("miss");
    const before = upstreamCalls();
    const second = await openai(token).responses.create(params).withResponse();
    expect(second.response.headers.get("x-pod-cache")).toBe("hit");
    expect(second.data.output_text).toBe(first.data.output_text);
    expect(second.data.id).not.toBe(first.data.id);
    const stream = await openai(token).responses.create({ ...params, stream: true });
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) if (event.type === "response.completed") completed = event.response;
    expect(completed?.output_text ?? completed?.output).toBeTruthy();
    expect(upstreamCalls()).toBe(before);
  });

  it("sends a streamed hit at once: the whole event stream as one body of known length, in each format", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const formats = [
      {
        path: "/v1/chat/completions",
        body: {
          model: "gpt-4o-mini",
          max_tokens: 40,
          messages: [{ role: "user", content: "whole [fake:tokens=9]" }],
        },
        first: "data: {",
        last: "data: [DONE]\n\n",
      },
      {
        path: "/v1/messages",
        body: {
          model: "claude-haiku-4-5",
          max_tokens: 40,
          messages: [{ role: "user", content: "whole [fake:tokens=9]" }],
        },
        first: "event: message_start\n",
        last: "event: message_stop\n",
      },
      {
        path: "/v1/responses",
        body: { model: "gpt-4o-mini", max_output_tokens: 40, input: "whole [fake:tokens=9]" },
        first: "event: response.created\n",
        last: "event: response.completed\n",
      },
    ];
    for (const format of formats) {
      const send = () =>
        fetch(`${gateway.baseUrl}/proxy/${token}${format.path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-pod-cache": "on" },
          body: JSON.stringify({ ...format.body, temperature: 0, stream: true }),
        });
      const miss = await send();
      await miss.arrayBuffer();
      expect(miss.headers.get("x-pod-cache")).toBe("miss");
      // A live stream goes out event by event as the upstream sends them: no length up front.
      expect(miss.headers.get("content-length")).toBeNull();
      const hit = await send();
      const bytes = new Uint8Array(await hit.arrayBuffer());
      const text = new TextDecoder().decode(bytes);
      expect(hit.headers.get("x-pod-cache")).toBe("hit");
      expect(hit.headers.get("content-type")).toContain("text/event-stream");
      // Its length was known before the first byte: every event was rendered before any was
      // written, so no per-event write, timer or stream read can sit between two events.
      expect(hit.headers.get("transfer-encoding")).toBeNull();
      expect(Number(hit.headers.get("content-length"))).toBe(bytes.byteLength);
      expect(text.startsWith(format.first)).toBe(true);
      expect(text).toContain(format.last);
      expect(text.endsWith("\n\n")).toBe(true);
    }
  });

  it("serves only what is meant to repeat, and only what was asked for", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const prompt = "sampled [fake:tokens=3]";
    // Sampled freely: never kept, the upstream answers each time.
    for (let round = 0; round < 2; round += 1)
      expect(await chat(token, prompt, { temperature: 0.7 })).toMatchObject({ cache: "bypass", upstream: 1 });
    // Not asked: no cache, no header.
    for (let round = 0; round < 2; round += 1)
      expect(await chat(token, "unasked [fake:tokens=3]", {}, {})).toMatchObject({
        cache: null,
        upstream: 1,
      });
    // Another model, another limit, another message: each its own entry.
    await chat(token, "varied [fake:tokens=3]");
    expect(await chat(token, "varied [fake:tokens=3]", { max_tokens: 49 })).toMatchObject({ cache: "miss" });
    expect(await chat(token, "varied  [fake:tokens=3]")).toMatchObject({ cache: "miss" });
    expect(await chat(token, "varied [fake:tokens=3]", { model: "gpt-4o" })).toMatchObject({ cache: "miss" });
    // Routing that may change the answer is part of the entry too.
    expect(await chat(token, "varied [fake:tokens=3]", { provider: { only: ["openrouter"] } })).toMatchObject(
      { cache: "miss" },
    );
    // The request may refuse a kept answer; the body field works as the header does.
    expect(await chat(token, "varied [fake:tokens=3]", {}, { "X-Pod-Cache": "off" })).toMatchObject({
      cache: "bypass",
      upstream: 1,
    });
    expect(await chat(token, "varied [fake:tokens=3]", { cache: true }, {})).toMatchObject({ cache: "hit" });
    expect(await chat(token, "varied [fake:tokens=3]", { cache: false })).toMatchObject({ cache: "bypass" });
    // The field never reaches the upstream.
    await chat(token, "field [fake:tokens=3]", { cache: { ttl: 60 } }, {});
    expect(gateway.openai.requests.at(-1)?.body.cache).toBeUndefined();
  });

  it("a key created with response_cache caches every repeatable request it makes", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const key = await createKey(token, { response_cache: true });
    const prompt = "key setting [fake:tokens=4]";
    expect(await chat(key, prompt, {}, {})).toMatchObject({ cache: "miss", upstream: 1 });
    expect(await chat(key, prompt, {}, {})).toMatchObject({ cache: "hit", upstream: 0 });
    // The token itself (no key setting) does not ask, though the entry is its account's.
    expect(await chat(token, prompt, {}, {})).toMatchObject({ cache: null, upstream: 1 });
    expect(await chat(token, prompt)).toMatchObject({ cache: "hit", upstream: 0 });
  });

  it("refuses a malformed ask with a 400 that moves no money", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    for (const [extra, headers] of [
      [{}, { "X-Pod-Cache": "hit" }],
      [{}, { "X-Pod-Cache": "on", "X-Pod-Cache-TTL": "-5" }],
      [{ cache: { scope: "shared" } }, {}],
      [{ cache: "yes" }, {}],
    ] as const) {
      const error = await chat(token, "bad ask", extra, headers).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    }
    expect((await gateway.balanceOf(token)).balance).toBe(1_000_000n);
  });
});

describe("response cache: another account never gets an account's answer", () => {
  it("the same body, smuggled headers, and a key of another account all miss", async () => {
    const victim = await gateway.createFundedToken(10_000_000n);
    const attacker = await gateway.createFundedToken(10_000_000n);
    const first = "my private question [fake:tokens=9]";
    const second = "my other private question [fake:tokens=5]";
    for (const secret of [first, second]) {
      expect(await chat(victim, secret)).toMatchObject({ cache: "miss" });
      expect(await chat(victim, secret)).toMatchObject({ cache: "hit" });
    }
    // The victim's exact body from another account: the upstream answers, at the full price.
    expect(await chat(attacker, first)).toMatchObject({ cache: "miss", upstream: 1, route: "centralized" });
    // Headers that might look like a scope or an account are no part of the entry; through a
    // key of the attacker's account that caches everything, the victim's other answer still misses.
    const smuggled = {
      "X-Pod-Cache": "on",
      "X-Pod-Cache-Scope": "shared",
      "X-Pod-Account": "1",
      "X-Pod-Cache-Key": "victim",
      "X-Forwarded-For": "127.0.0.1",
    };
    const attackerKey = await createKey(attacker, { response_cache: true });
    expect(await chat(attackerKey, second, {}, smuggled)).toMatchObject({ cache: "miss", upstream: 1 });
    expect(await chat(attackerKey, second, { cache: { ttl: 5 } }, {})).toMatchObject({ cache: "hit" });
    expect((await transactions(attacker)).filter((row) => row.route === "cache")).toHaveLength(1);
    // The victim's entries are untouched: its next ask still hits.
    expect(await chat(victim, first)).toMatchObject({ cache: "hit", upstream: 0 });
  });

  it("with RESPONSE_CACHE_SHARED=on the operator lets accounts share entries", async () => {
    const shared = await startTestGateway({
      env: { RESPONSE_CACHE_SHARED: "on", RESPONSE_CACHE_HIT_PERCENT: "50" },
    });
    try {
      const one = await shared.createFundedToken(10_000_000n);
      const two = await shared.createFundedToken(10_000_000n);
      const client = (token: string) =>
        new OpenAI({
          baseURL: `${shared.baseUrl}/proxy/${token}/v1`,
          apiKey: "pod",
          maxRetries: 0,
          defaultHeaders: { "X-Pod-Cache": "on" },
        });
      const ask = (token: string) =>
        client(token)
          .chat.completions.create({
            model: "gpt-4o-mini",
            messages: [{ role: "user", content: "public question [fake:tokens=8]" }],
            temperature: 0,
          })
          .withResponse();
      const first = await ask(one);
      const second = await ask(two);
      expect(first.response.headers.get("x-pod-cache")).toBe("miss");
      expect(second.response.headers.get("x-pod-cache")).toBe("hit");
      const cost = BigInt(first.response.headers.get("x-pod-cost-microunits") ?? "0");
      expect(second.response.headers.get("x-pod-cost-microunits")).toBe(String((cost + 1n) / 2n));
    } finally {
      await shared.close();
    }
  });
});

const redis = testRedis();

describe.skipIf(redis.skipReason !== undefined)("response cache in Redis", () => {
  it("keeps the answer in the replicas' Redis and answers from it", async () => {
    const namespace = `rc-test-${process.pid}-${Date.now()}`;
    const withRedis = await startTestGateway({
      env: { REDIS_URL: redis.url ?? "", REDIS_NAMESPACE: namespace },
    });
    try {
      const token = await withRedis.createFundedToken(10_000_000n);
      const client = new OpenAI({
        baseURL: `${withRedis.baseUrl}/proxy/${token}/v1`,
        apiKey: "pod",
        maxRetries: 0,
        defaultHeaders: { "X-Pod-Cache": "on" },
      });
      const ask = () =>
        client.chat.completions
          .create({
            model: "gpt-4o-mini",
            messages: [{ role: "user", content: "kept in redis [fake:tokens=6]" }],
            temperature: 0,
          })
          .withResponse();
      expect((await ask()).response.headers.get("x-pod-cache")).toBe("miss");
      // Kept after the answer went out: looked up until it is there.
      let state: string | null = "miss";
      for (let attempt = 0; attempt < 50 && state !== "hit"; attempt += 1)
        state = (await ask()).response.headers.get("x-pod-cache");
      expect(state).toBe("hit");
      expect(withRedis.openai.requests.length).toBeLessThan(50);
    } finally {
      await withRedis.close();
    }
  });
});
