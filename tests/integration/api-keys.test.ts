import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { inferenceClient } from "../helpers/inference-client";

/**
 * Further API keys, tried as an attacker would: a key past its daily limit, a revoked key, a
 * rotated-out key, another account's key id, a key trying to manage keys, and a crowd of
 * concurrent requests racing for the last of a limit. With leases (the default) and with a
 * hold row per request.
 */

interface IssuedKey {
  api_key: string;
  base_url: string;
  key: { id: string; spent_microunits: number; limit: { amount_microunits: number; period: string } | null };
}

const modes = [
  ["balance leases", true],
  ["a hold row per request", false],
] as const;

describe.each(modes)("API keys (%s)", (_name, lease) => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ lease });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
  });

  async function keys(token: string, path = "", init: RequestInit = {}) {
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/keys${path}`, {
      ...init,
      headers: { "content-type": "application/json", ...init.headers },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function createKey(token: string, body: Record<string, unknown>): Promise<IssuedKey> {
    const created = await keys(token, "", { method: "POST", body: JSON.stringify(body) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as unknown as IssuedKey;
  }

  async function spentOf(token: string, keyId: string): Promise<number> {
    const list = (await keys(token)).body as { keys: IssuedKey["key"][] };
    return list.keys.find((key) => key.id === keyId)?.spent_microunits ?? -1;
  }

  it("a key spends the account's balance and is refused past its daily limit, in the caller's dialect", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    // ~10 µ a request (16 in, 3 out at gpt-4o-mini's rates): a 50 µ day fits a few, not many.
    const issued = await createKey(token, {
      label: "ci bot",
      limit: { amount_microunits: 50, period: "day" },
    });
    expect(issued.key.limit).toEqual({ amount_microunits: 50, period: "day" });
    const client = inferenceClient(gateway, issued.api_key);
    let served = 0;
    let refusal: Response | undefined;
    for (let attempt = 0; attempt < 20 && refusal === undefined; attempt += 1) {
      const response = await client.chat({ maxTokens: 3 });
      if (response.status === 200) {
        served += 1;
        await response.text();
      } else refusal = response;
    }
    expect(served).toBeGreaterThan(0);
    expect(refusal?.status).toBe(402);
    const body = (await refusal?.json()) as {
      error: { code: string; message: string; details: Record<string, unknown> };
    };
    expect(body.error.code).toBe("key_limit_reached");
    expect(body.error.message).toContain("per day");
    expect(body.error.details.limit_microunits).toBe(50);
    expect(Number(body.error.details.spent_microunits)).toBeLessThanOrEqual(50);

    // The Anthropic surface answers in Anthropic's envelope, which its SDK raises as a billing error.
    const anthropic = new Anthropic({
      baseURL: `${gateway.baseUrl}/proxy/${issued.api_key}`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const refused = await anthropic.messages
      .create({ model: "gpt-4o-mini", max_tokens: 3, messages: [{ role: "user", content: "hi" }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.APIError);
    expect((refused as InstanceType<typeof Anthropic.APIError>).status).toBe(402);
    expect(JSON.stringify((refused as InstanceType<typeof Anthropic.APIError>).error)).toContain(
      "billing_error",
    );
    const openai = new OpenAI({ baseURL: issued.base_url, apiKey: "pod", maxRetries: 0 });
    const openaiRefused = await openai.chat.completions
      .create({ model: "gpt-4o-mini", max_tokens: 3, messages: [{ role: "user", content: "hi" }] })
      .catch((error: unknown) => error);
    expect((openaiRefused as InstanceType<typeof OpenAI.APIError>).code).toBe("key_limit_reached");

    // The token itself and an unlimited key of the same account are not limited by it.
    const token200 = await inferenceClient(gateway, token).chat({ maxTokens: 3 });
    expect(token200.status).toBe(200);
    const free = await createKey(token, { label: "unlimited" });
    expect((await inferenceClient(gateway, free.api_key).chat({ maxTokens: 3 })).status).toBe(200);

    await gateway.app.leases?.returnAll();
    expect(await spentOf(token, issued.key.id)).toBeLessThanOrEqual(50);
    expect(await spentOf(token, issued.key.id)).toBeGreaterThan(0);
  }, 60_000);

  it("concurrent requests cannot take a key past its limit", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const limit = 400;
    const issued = await createKey(token, {
      label: "crowd",
      limit: { amount_microunits: limit, period: "month" },
    });
    const client = inferenceClient(gateway, issued.api_key);
    const results = await Promise.all(
      Array.from({ length: 120 }, async (_, index) => {
        const response = await client.chat({ maxTokens: 40, content: `r${index} [fake:tokens=40]` });
        const body = (await response.json()) as { error?: { details: Record<string, number> } };
        return {
          status: response.status,
          cost: Number(response.headers.get("x-pod-cost-microunits") ?? 0),
          details: body.error?.details ?? {},
        };
      }),
    );
    const served = results.filter((result) => result.status === 200);
    const refused = results.filter((result) => result.status !== 200);
    expect(served.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    // Each refusal says which it is: the limit reached (and it was), or too many in flight (and they were).
    for (const { status, details } of refused) {
      if (status === 402)
        expect((details.spent_microunits ?? 0) + (details.needed_microunits ?? 0)).toBeGreaterThan(limit);
      else {
        expect(status).toBe(429);
        expect(details.in_flight).toBeGreaterThan(0);
      }
    }
    const charged = served.reduce((total, result) => total + result.cost, 0);
    // One process: the limit is never overshot, by a single microunit.
    expect(charged).toBeLessThanOrEqual(limit);
    await gateway.app.leases?.returnAll();
    expect(await spentOf(token, issued.key.id)).toBe(charged);
    // And the ledger agrees with what the responses said.
    const balance = await gateway.balanceOf(token);
    expect(balance.balance).toBe(10_000_000n - BigInt(charged));
  }, 90_000);

  it("50 concurrent honest requests under a key's limit are all served; past it each refusal says why", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    // Each request's worst case (max_tokens 200: ~120 µ) is far above what it costs (3 tokens out:
    // a few µ), so 50 worst cases (~6,000 µ) are ten times the limit while 50 charges fit in it.
    const probe = await createKey(token, { label: "probe" });
    const one = await inferenceClient(gateway, probe.api_key).chat({ maxTokens: 200 });
    await one.text();
    const cost = Number(one.headers.get("x-pod-cost-microunits"));
    const limit = cost * 80;
    const issued = await createKey(token, {
      label: "crowd",
      limit: { amount_microunits: limit, period: "day" },
    });
    const client = inferenceClient(gateway, issued.api_key);
    const burst = (count: number) =>
      Promise.all(
        Array.from({ length: count }, async (_, index) => {
          const response = await client.chat({ maxTokens: 200, content: `b${index} [fake:tokens=3]` });
          const body = (await response.json()) as {
            error?: { code: string; details: Record<string, number> };
          };
          return {
            status: response.status,
            cost: Number(response.headers.get("x-pod-cost-microunits") ?? 0),
            error: body.error,
          };
        }),
      );
    const first = await burst(50);
    expect(first.filter((result) => result.status !== 200)).toEqual([]);
    const firstCharged = first.reduce((total, result) => total + result.cost, 0);
    expect(firstCharged).toBeLessThanOrEqual(limit);

    // Past the limit: what is refused is refused as "limit reached" with figures that show it.
    const second = await burst(50);
    const served = second.filter((result) => result.status === 200);
    const refused = second.filter((result) => result.status !== 200);
    expect(served.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const result of refused) {
      expect(result.status).toBe(402);
      expect(result.error?.code).toBe("key_limit_reached");
      const details = result.error?.details ?? {};
      // The words are true: what was spent leaves less than this request's least cost.
      expect((details.spent_microunits ?? 0) + (details.needed_microunits ?? 0)).toBeGreaterThan(limit);
    }
    const charged = firstCharged + served.reduce((total, result) => total + result.cost, 0);
    // One process: the limit is never overshot (the promise is one request's worst case at most).
    expect(charged).toBeLessThanOrEqual(limit);
    await gateway.app.leases?.returnAll();
    expect(await spentOf(token, issued.key.id)).toBe(charged);
  }, 90_000);

  it("a request that cannot fit beside the key's requests in flight is refused as crowded, not as limit reached", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const issued = await createKey(token, {
      label: "slow",
      limit: { amount_microunits: 150, period: "day" },
    });
    const client = inferenceClient(gateway, issued.api_key);
    // Claims ~140 µ of 150 whole (its worst case fits) and holds it while the upstream hangs.
    const slow = client.chat({ maxTokens: 230, content: "slow [fake:hang=7000] [fake:tokens=3]" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // It waits KEY_CLAIM_WAIT_MS (5 s) for the slow one, which is still hanging, then is refused.
    const crowded = await client.chat({ maxTokens: 200 });
    expect(crowded.status).toBe(429);
    expect(crowded.headers.get("retry-after")).toBe("1");
    const body = (await crowded.json()) as {
      error: { code: string; message: string; details: Record<string, number> };
    };
    expect(body.error.code).toBe("rate_limited");
    expect(body.error.message).toContain("too many requests in flight");
    expect(body.error.details.in_flight).toBe(1);
    expect(body.error.details.spent_microunits).toBe(0);
    expect(body.error.details.claimed_microunits).toBeGreaterThan(
      150 - (body.error.details.needed_microunits ?? 0),
    );
    expect((await slow).status).toBe(200);
    // Once the slow request settled (a few µ), the key has room again.
    expect((await client.chat({ maxTokens: 200 })).status).toBe(200);
  }, 60_000);

  it("a revoked key and a rotated-out key are refused at once; the rotated key keeps its spend", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const issued = await createKey(token, {
      label: "laptop",
      limit: { amount_microunits: 100_000, period: "day" },
    });
    expect((await inferenceClient(gateway, issued.api_key).chat({ maxTokens: 3 })).status).toBe(200);

    const rotated = await keys(token, `/${issued.key.id}/rotate`, { method: "POST" });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body as unknown as IssuedKey;
    expect(fresh.api_key).not.toBe(issued.api_key);
    expect(fresh.key.id).toBe(issued.key.id);
    const old = await inferenceClient(gateway, issued.api_key).chat({ maxTokens: 3 });
    expect(old.status).toBe(401);
    expect(((await old.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    expect((await inferenceClient(gateway, fresh.api_key).chat({ maxTokens: 3 })).status).toBe(200);
    await gateway.app.leases?.returnAll();
    expect(await spentOf(token, issued.key.id)).toBeGreaterThan(0);

    const revoked = await keys(token, `/${issued.key.id}/revoke`, { method: "POST" });
    expect(revoked.status).toBe(200);
    expect((revoked.body.key as { status: string }).status).toBe("revoked");
    const after = await inferenceClient(gateway, fresh.api_key).messages({ maxTokens: 3 });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { type: string; error: { type: string } }).error.type).toBe(
      "authentication_error",
    );
    // Every keyed route refuses it, not only inference.
    expect((await fetch(`${gateway.baseUrl}/proxy/${fresh.api_key}/balance`)).status).toBe(401);
    // A revoked key cannot be brought back by rotating it.
    expect((await keys(token, `/${issued.key.id}/rotate`, { method: "POST" })).status).toBe(409);
  }, 60_000);

  it("keys are managed only with the account's token, and only that account's keys", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const other = await gateway.createFundedToken(1_000_000n);
    const issued = await createKey(token, { label: "mine" });
    // A key cannot mint more keys, lift a limit or list the account's keys.
    expect(
      (await keys(issued.api_key, "", { method: "POST", body: JSON.stringify({ label: "x" }) })).status,
    ).toBe(403);
    expect((await keys(issued.api_key)).status).toBe(403);
    expect(
      (
        await keys(issued.api_key, `/${issued.key.id}`, {
          method: "PATCH",
          body: JSON.stringify({ limit: null }),
        })
      ).status,
    ).toBe(403);
    // Another account's token sees the key as unknown.
    expect((await keys(other, `/${issued.key.id}/revoke`, { method: "POST" })).status).toBe(404);
    expect(
      (await keys(other, `/${issued.key.id}`, { method: "PATCH", body: JSON.stringify({ label: "x" }) }))
        .status,
    ).toBe(404);
    expect((await keys(other)).body).toEqual({ keys: [] });
    // Bounded input: no zero or negative limit, no unknown period, no absurd label.
    for (const body of [
      { label: "a", limit: { amount_microunits: 0, period: "day" } },
      { label: "a", limit: { amount_microunits: -5, period: "day" } },
      { label: "a", limit: { amount_microunits: 5, period: "week" } },
      { label: "x".repeat(65) },
      { label: "bell\u0007" },
    ])
      expect((await keys(token, "", { method: "POST", body: JSON.stringify(body) })).status).toBe(400);
    // Still usable, still unlimited.
    expect((await inferenceClient(gateway, issued.api_key).chat({ maxTokens: 3 })).status).toBe(200);
  }, 60_000);

  it("a limit raised or lifted applies to the next request", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const issued = await createKey(token, { label: "tight", limit: { amount_microunits: 1, period: "day" } });
    const first = await inferenceClient(gateway, issued.api_key).chat({ maxTokens: 3 });
    expect(first.status).toBe(402);
    const patched = await keys(token, `/${issued.key.id}`, {
      method: "PATCH",
      body: JSON.stringify({ limit: { amount_microunits: 1_000, period: "day" } }),
    });
    expect(patched.status).toBe(200);
    expect((await inferenceClient(gateway, issued.api_key).chat({ maxTokens: 3 })).status).toBe(200);
    await keys(token, `/${issued.key.id}`, { method: "PATCH", body: JSON.stringify({ limit: null }) });
    expect((await inferenceClient(gateway, issued.api_key).chat({ maxTokens: 3 })).status).toBe(200);
  }, 60_000);
});
