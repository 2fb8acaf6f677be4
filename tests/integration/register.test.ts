import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiTokens } from "../../lib/db/schema";
import { loadEnv } from "../../lib/env";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { REGISTER_RATE_LIMIT_PER_MINUTE: "10", TRUST_PROXY: "true" } });
});
afterAll(async () => {
  await gateway.close();
});

const register = () =>
  fetch(`${gateway.baseUrl}/v1/register`, { method: "POST", headers: { "x-forwarded-for": "203.0.113.9" } });

describe("POST /v1/register", () => {
  it("returns a token, a unique 16-hex deposit code and the instructions; stores only a hash", async () => {
    const first = await register();
    expect(first.status).toBe(200);
    const body = (await first.json()) as Record<string, unknown> & { instructions: Record<string, unknown> };
    expect(body.api_token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.deposit_code).toMatch(/^[0-9a-f]{16}$/);
    expect(body.status).toBe("pending_deposit");
    // No SOLANA_DEPOSIT_ADDRESS here: no address at all, and the response says deposits are off.
    expect(body.deposit_address).toBeNull();
    expect(body.onchain_deposits).toMatchObject({ enabled: false, reason: expect.stringContaining("off") });
    expect(JSON.stringify(body)).not.toContain("BBAdcqUkg68JXNiPQ1HR1wujfZuayyK3eQTQSYAh6FSW");
    expect(body.instructions).toMatchObject({
      contract_address: null,
      deposit_address: null,
      dashboard_url: `${gateway.baseUrl}/dashboard#token=${String(body.api_token)}`,
    });
    const second = (await (await register()).json()) as Record<string, unknown>;
    expect(second.api_token).not.toBe(body.api_token);
    expect(second.deposit_code).not.toBe(body.deposit_code);

    const rows = await gateway.app.database.db.select().from(apiTokens);
    const stored = JSON.stringify(rows, (_key, value) =>
      typeof value === "bigint" ? value.toString() : value,
    );
    expect(stored).not.toContain(String(body.api_token));
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.tokenHash))).toBe(true);
  });

  it("becomes active on the first credit, and balance reports integer microunits", async () => {
    const registered = await fetch(`${gateway.baseUrl}/v1/register`, {
      method: "POST",
      headers: { "x-forwarded-for": "192.0.2.2" },
    });
    const { api_token: token, deposit_code: depositCode } = (await registered.json()) as {
      api_token: string;
      deposit_code: string;
    };
    const before = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/balance`)).json()) as Record<
      string,
      unknown
    >;
    expect(before).toMatchObject({
      api_token: token,
      usdc_balance: 0,
      credit_balance: 0,
      deposit_code: depositCode,
      is_active: false,
    });
    await gateway.credit(token, 2_500_000n);
    const after = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/balance`)).json()) as Record<
      string,
      unknown
    >;
    expect(after).toMatchObject({ usdc_balance: 2_500_000, is_active: true });
    const unknown = await fetch(`${gateway.baseUrl}/proxy/00000000-0000-4000-8000-000000000000/balance`);
    expect(unknown.status).toBe(401);
  });

  it("limits each client IP to 10 a minute with 429 and Retry-After", async () => {
    const ip = { "x-forwarded-for": "198.51.100.77" };
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let index = 0; index < 12; index += 1) {
      const response = await fetch(`${gateway.baseUrl}/v1/register`, { method: "POST", headers: ip });
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429]);
    expect(Number(limited?.headers.get("retry-after"))).toBeGreaterThan(0);
    if (!limited) throw new Error("never limited");
    expect(((await limited.json()) as { error: { type: string } }).error.type).toBe("rate_limited");
  });
});

describe("POST /v1/register with a deposit wallet", () => {
  it("advertises exactly SOLANA_DEPOSIT_ADDRESS, with the code as memo; DASHBOARD_URL signs in by fragment", async () => {
    const owner = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
    const withWallet = await startTestGateway({
      env: { SOLANA_DEPOSIT_ADDRESS: owner, DASHBOARD_URL: "https://pod.example.com/dashboard/" },
    });
    try {
      const body = (await (await fetch(`${withWallet.baseUrl}/v1/register`, { method: "POST" })).json()) as {
        api_token: string;
        deposit_code: string;
        deposit_address: string;
        onchain_deposits: Record<string, unknown>;
        instructions: Record<string, unknown>;
      };
      expect(body.deposit_address).toBe(owner);
      expect(body.onchain_deposits).toMatchObject({ enabled: true, memo: body.deposit_code });
      expect(body.instructions).toEqual({
        contract_address: owner,
        deposit_address: owner,
        memo: body.deposit_code,
        dashboard_url: `https://pod.example.com/dashboard#token=${body.api_token}`,
      });
    } finally {
      await withWallet.close();
    }
  });

  it("refuses to start with a deposit address that is not a Solana address", () => {
    expect(() => loadEnv({ SOLANA_DEPOSIT_ADDRESS: "0xnot-solana" })).toThrow(/SOLANA_DEPOSIT_ADDRESS/);
  });
});

describe("POST /v1/admin/credits", () => {
  it("refuses a wrong admin token and replays an idempotency key only once", async () => {
    const registered = await fetch(`${gateway.baseUrl}/v1/register`, {
      method: "POST",
      headers: { "x-forwarded-for": "192.0.2.1" },
    });
    const { api_token: token } = (await registered.json()) as { api_token: string };
    const post = (authorization: string, key?: string) =>
      fetch(`${gateway.baseUrl}/v1/admin/credits`, {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body: JSON.stringify({
          api_token: token,
          amount_microunits: 1000,
          reason: "support refund",
          ...(key ? { idempotency_key: key } : {}),
        }),
      });
    expect((await post("Bearer wrong")).status).toBe(401);
    expect((await post("Bearer test-admin-token", "refund-1")).status).toBe(200);
    const replay = (await (await post("Bearer test-admin-token", "refund-1")).json()) as Record<
      string,
      unknown
    >;
    expect(replay).toMatchObject({ credited: false, duplicate: true, usdc_balance: 1000 });
  });
});

describe("admin API without ADMIN_TOKEN", () => {
  it("is disabled", async () => {
    const bare = await startTestGateway({ env: { ADMIN_TOKEN: "" } });
    try {
      const response = await fetch(`${bare.baseUrl}/v1/admin/credits`, {
        method: "POST",
        headers: { authorization: "Bearer ", "content-type": "application/json" },
        body: JSON.stringify({ api_token: "x", amount_microunits: 1, reason: "r" }),
      });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain("disabled");
    } finally {
      await bare.close();
    }
  });
});
