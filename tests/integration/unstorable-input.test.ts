import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway, testAdminToken } from "../helpers/gateway";
import { createMarketplaceFixture } from "../helpers/marketplace-fixture";

/**
 * Issue 9: input that used to reach a stack overflow or a failed database write (500/502,
 * counted against a healthy provider) is a 400 in the caller's dialect, and nothing moves.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ health: { minAttempts: 2 } });
});
afterAll(async () => {
  await gateway.close();
});

const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const post = (path: string, text: string, headers: Record<string, string> = {}) =>
  fetch(`${gateway.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: text,
  });

describe("deeply nested JSON", () => {
  it("is a 400 on every inference route, reaches no upstream and demotes no provider", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const upstreamCalls = () => gateway.openai.requests.length + gateway.anthropic.requests.length;
    const before = upstreamCalls();
    const message = '[{"role":"user","content":"hi"}]';
    const cases: Array<[string, string]> = [
      [
        `/proxy/${token}/v1/chat/completions`,
        `{"model":"gpt-4o-mini","stream":true,"messages":${message},"extra":${deep(20_000)}}`,
      ],
      [
        `/proxy/${token}/v1/chat/completions`,
        `{"model":"gpt-4o-mini","messages":${message},"tools":[{"type":"function","function":{"name":"f","parameters":${deep(5_000)}}}]}`,
      ],
      [
        `/proxy/${token}/v1/messages`,
        `{"model":"claude-haiku-4-5","max_tokens":5,"messages":${message},"metadata":${deep(5_000)}}`,
      ],
      [
        `/proxy/${token}/v1/messages/count_tokens`,
        `{"model":"claude-haiku-4-5","messages":${message},"system":${deep(20_000)}}`,
      ],
    ];
    for (const [path, body] of cases) {
      const response = await post(path, body);
      expect(response.status, path).toBe(400);
      expect(await response.text()).toMatch(/nested deeper than/);
    }
    expect(upstreamCalls()).toBe(before);
    const normal = await post(
      `/proxy/${token}/v1/chat/completions`,
      JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    );
    expect(normal.status).toBe(200);
    expect(normal.headers.get("x-pod-provider-id")).toBe("openai");
    expect(await gateway.balanceOf(token)).toMatchObject({ held: 0n });
  });
});

describe("NUL and lone surrogates in stored text", () => {
  const admin = { authorization: `Bearer ${testAdminToken}` };

  it.each([
    ["reason", { reason: "bad\u0000reason" }],
    ["reason", { reason: "bad\ud800reason" }],
    ["idempotency_key", { reason: "ok", idempotency_key: "key\u0000" }],
    ["idempotency_key", { reason: "ok", idempotency_key: "key\udc00" }],
  ])("admin credit with a bad %s is a 400 and credits nothing", async (field, extra) => {
    const { token } = await gateway.register();
    const response = await post(
      "/v1/admin/credits",
      JSON.stringify({ api_token: token, amount_microunits: "1000", ...extra }),
      admin,
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(field);
    expect((await gateway.balanceOf(token)).balance).toBe(0n);
  });

  it("host display_name and relay key label: 400", async () => {
    const enroll = await post(
      "/v1/host/enroll",
      JSON.stringify({ display_name: "rack\u0000", wallet: "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS" }),
    );
    expect(enroll.status).toBe(400);
    const host = await createMarketplaceFixture(gateway).enroll();
    const added = await host.call("POST", "/v1/host/relay-keys", {
      upstream: "together",
      api_key: "sk-relay-test",
      label: "key \ud83d",
    });
    expect(added.status).toBe(400);
  });
});
