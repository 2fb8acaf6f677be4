import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropicErrorType, type ErrorType } from "../../lib/errors/gateway-error";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

let gateway: TestGateway;
let token: string;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { MAX_BODY_BYTES: "65536" } });
  token = await gateway.createFundedToken(500_000n);
});
afterAll(async () => {
  await gateway.close();
});

const openaiPath = () => `${gateway.baseUrl}/proxy/${token}/v1/chat/completions`;
const anthropicPath = () => `${gateway.baseUrl}/proxy/${token}/v1/messages`;
const post = (url: string, body: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });

const cases: { name: string; body: string; status: number; type: ErrorType; message: RegExp }[] = [
  { name: "invalid JSON", body: "{nope", status: 400, type: "bad_request", message: /invalid JSON/ },
  {
    name: "missing model",
    body: JSON.stringify({ messages: [] }),
    status: 400,
    type: "bad_request",
    message: /model is required/,
  },
  {
    name: "messages not an array",
    body: JSON.stringify({ model: "gpt-4o-mini", messages: "hi" }),
    status: 400,
    type: "bad_request",
    message: /messages/,
  },
  {
    name: "bad max_tokens",
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [], max_tokens: -1 }),
    status: 400,
    type: "bad_request",
    message: /max_tokens/,
  },
  {
    name: "unknown model",
    body: JSON.stringify({ model: "no-such-model", messages: [] }),
    status: 404,
    type: "model_not_found",
    message: /no-such-model/,
  },
  {
    name: "huge body",
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x".repeat(70_000) }] }),
    status: 413,
    type: "payload_too_large",
    message: /exceeds/,
  },
];

describe("bad input gets a clear 4xx in the caller's dialect and moves no money", () => {
  for (const testCase of cases) {
    it(`${testCase.name} (OpenAI dialect)`, async () => {
      const response = await post(openaiPath(), testCase.body);
      expect(response.status).toBe(testCase.status);
      const body = (await response.json()) as { error: { type: string; message: string; code: string } };
      expect(body.error.type).toBe(testCase.type);
      expect(body.error.code).toBe(testCase.type);
      expect(body.error.message).toMatch(testCase.message);
      expect((await gateway.balanceOf(token)).balance).toBe(500_000n);
    });
    it(`${testCase.name} (Anthropic dialect)`, async () => {
      const response = await post(anthropicPath(), testCase.body);
      expect(response.status).toBe(testCase.status);
      const body = (await response.json()) as {
        type: string;
        error: { type: string; code: string; message: string };
      };
      expect(body.type).toBe("error");
      // Anthropic's own type name, with the gateway's kind beside it.
      expect(body.error.type).toBe(anthropicErrorType[testCase.type]);
      expect(body.error.code).toBe(testCase.type);
      expect(body.error.message).toMatch(testCase.message);
      expect(response.headers.get("request-id")).toMatch(/^req_/);
    });
  }

  it("an upstream 400 is returned as the caller's 400 and is not billed", async () => {
    const response = await post(
      openaiPath(),
      JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "[fake:error=400]" }] }),
    );
    expect(response.status).toBe(400);
    expect((await gateway.balanceOf(token)).balance).toBe(500_000n);
  });

  it("unknown API paths and wrong methods answer in JSON", async () => {
    const missing = await fetch(`${gateway.baseUrl}/v1/nothing-here`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { type: string } }).error.type).toBe("not_found");
    const wrongMethod = await fetch(openaiPath());
    expect(wrongMethod.status).toBe(405);
  });

  it("the ledger still balances", async () => {
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  });
});

describe("CORS for browser clients", () => {
  it("answers a preflight and exposes the gateway's headers", async () => {
    const preflight = await fetch(openaiPath(), {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("authorization, content-type");
    const response = await post(
      openaiPath(),
      JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    );
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-expose-headers")).toContain("x-balance-remaining");
  });
});
