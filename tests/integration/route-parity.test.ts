import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";
import next from "next";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "../../lib/api/routes";
import { ensureBuild, repoRoot } from "../e2e/next-server";
import { startTestGateway, type TestGateway, testAdminToken } from "../helpers/gateway";

/**
 * The manifest (lib/api/routes.ts) and the app/ route files describe the same API, and both
 * entry points answer the same over real HTTP: server.ts on one port, Next serving the
 * route files on another, sharing one app context (one database).
 */

const apiFolders = ["v1", "proxy", "health", "metrics"];

/** `app/proxy/[token]/balance/route.ts` → `/proxy/:token/balance`. */
function routeFilePaths(): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry === "route.ts") {
        const relative = path.relative(path.join(repoRoot, "app"), path.dirname(full));
        found.set(`/${relative.split(path.sep).join("/")}`.replace(/\[([^\]]+)\]/g, ":$1"), full);
      }
    }
  };
  for (const folder of apiFolders) walk(path.join(repoRoot, "app", folder));
  return found;
}

describe("the manifest and the app/ tree list the same routes", () => {
  it("every manifest path has a route file built from it, and every API route file has an entry", () => {
    const files = routeFilePaths();
    const manifestPaths = new Set(apiRoutes.map((route) => route.path));
    expect([...files.keys()].sort()).toEqual([...manifestPaths].sort());
    for (const [routePath, file] of files) {
      expect(readFileSync(file, "utf8"), file).toContain(`nextRoute("${routePath}")`);
    }
  });
});

let gateway: TestGateway;
let nextServer: Server;
let nextUrl: string;
let token: string;
let reader: string;
let hostToken: string;
let providerId: string;

async function startNextInProcess(): Promise<{ server: Server; url: string }> {
  const app = next({ dev: false, dir: repoRoot });
  await app.prepare();
  const handle = app.getRequestHandler();
  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      response.statusCode = 500;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}` };
}

beforeAll(async () => {
  ensureBuild();
  gateway = await startTestGateway();
  // After the gateway: its app context is the process-wide one the route files pick up.
  ({ server: nextServer, url: nextUrl } = await startNextInProcess());
  token = await gateway.createFundedToken(5_000_000n);
  reader = await gateway.createFundedToken(1_000_000n);
  const enrolled = (await (
    await fetch(`${gateway.baseUrl}/v1/host/enroll`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        display_name: "parity host",
        wallet: "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS",
      }),
    })
  ).json()) as { host_token: string; provider_id: string };
  hostToken = enrolled.host_token;
  providerId = enrolled.provider_id;
}, 600_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (nextServer ? nextServer.close(() => resolve()) : resolve()));
  await gateway?.close();
});

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

const volatileKeys = new Set([
  "created",
  "created_at",
  "enrolled_at",
  "updated_at",
  "activated_at",
  "completed_at",
  "api_token",
  "deposit_code",
  "memo",
  "host_token",
  "enrollment_code",
  "transaction_id",
  "usdc_balance",
  "amount_microunits",
]);

/** Ids, secrets and times differ between two calls; everything else must not. */
function normalise(value: unknown, base: string): unknown {
  if (typeof value === "string")
    return value
      .replaceAll(base, "<base>")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
      .replace(/\b([a-z]+)_[A-Za-z0-9]{12,}\b/g, "$1_<id>");
  if (Array.isArray(value)) return value.map((item) => normalise(item, base));
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        volatileKeys.has(key) || key === "id" || key.endsWith("_id") ? typeof item : normalise(item, base),
      ]),
    );
  return value;
}

/** An SSE body as its events, each parsed and normalised; a JSON body as JSON; else text. */
async function readAnswer(response: Response, base: string): Promise<Answer> {
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  let body: unknown = text;
  if (type.includes("text/event-stream")) {
    body = text
      .split(/\n\n/)
      .filter((frame) => frame.trim() !== "" && !frame.startsWith(":"))
      .map((frame) => {
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1] ?? "";
        return { event, data: data === "[DONE]" ? data : normalise(JSON.parse(data), base) };
      });
  } else if (type.includes("application/json") && text !== "") {
    body = normalise(JSON.parse(text), base);
  }
  return { status: response.status, headers: response.headers, body };
}

interface Case {
  name: string;
  method: string;
  path: () => string;
  headers?: () => Record<string, string>;
  body?: unknown;
  /** Run before each side's call (for routes that consume what they act on). */
  prepare?: (base: string) => Promise<string | undefined>;
}

const json = { "content-type": "application/json" };
const asHost = () => ({ authorization: `Bearer ${hostToken}`, ...json });
const asAdmin = () => ({ authorization: `Bearer ${testAdminToken}`, ...json });
const chat = (stream: boolean) => ({
  model: "gpt-4o-mini",
  max_tokens: 10,
  stream,
  messages: [{ role: "user", content: "parity [fake:tokens=3]" }],
});
const messages = (stream: boolean) => ({
  model: "claude-haiku-4-5",
  max_tokens: 10,
  stream,
  messages: [{ role: "user", content: "parity [fake:tokens=3]" }],
});

async function addRelayKey(base: string): Promise<string> {
  const response = await fetch(`${base}/v1/host/relay-keys`, {
    method: "POST",
    headers: asHost(),
    body: JSON.stringify({ upstream: "openai", api_key: "sk-parity-12345678", label: "parity" }),
  });
  return ((await response.json()) as { id: string }).id;
}

let relayKeyId = "";

const cases: Case[] = [
  { name: "health", method: "GET", path: () => "/health" },
  { name: "receipt keys", method: "GET", path: () => "/v1/receipts/keys" },
  { name: "register", method: "POST", path: () => "/v1/register" },
  { name: "balance", method: "GET", path: () => `/proxy/${reader}/balance` },
  {
    name: "balance, unknown token",
    method: "GET",
    path: () => "/proxy/00000000-0000-4000-8000-000000000000/balance",
  },
  { name: "transactions", method: "GET", path: () => `/proxy/${reader}/transactions` },
  {
    name: "receipt, unknown",
    method: "GET",
    path: () => `/proxy/${reader}/receipts/req_000000000000000000000000`,
  },
  {
    name: "transactions filtered",
    method: "GET",
    path: () => `/proxy/${reader}/transactions?kind=inference&route=centralized&model=gpt-4o-mini`,
  },
  {
    name: "transactions, a bad filter",
    method: "GET",
    path: () => `/proxy/${reader}/transactions?route=moon`,
  },
  {
    name: "transactions as CSV",
    method: "GET",
    path: () => `/proxy/${reader}/transactions/export?kind=admin_credit`,
  },
  {
    name: "a receipt for an unknown transaction",
    method: "GET",
    path: () => `/proxy/${reader}/transactions/00000000-0000-4000-8000-000000000000/receipt`,
  },
  { name: "models", method: "GET", path: () => `/proxy/${reader}/v1/models` },
  {
    name: "an unknown stored response",
    method: "GET",
    path: () => `/proxy/${reader}/v1/responses/resp_unknown`,
  },
  {
    name: "delete an unknown stored response",
    method: "DELETE",
    path: () => `/proxy/${reader}/v1/responses/resp_unknown`,
  },
  {
    name: "embeddings for a chat model",
    method: "POST",
    path: () => `/proxy/${reader}/v1/embeddings`,
    body: { model: "gpt-4o-mini", input: "hi" },
  },
  {
    name: "images for a chat model",
    method: "POST",
    path: () => `/proxy/${reader}/v1/images/generations`,
    body: { model: "gpt-4o-mini", prompt: "a cat" },
  },
  {
    name: "an image edit that is not multipart",
    method: "POST",
    path: () => `/proxy/${reader}/v1/images/edits`,
    body: { model: "dall-e-2", prompt: "a hat" },
  },
  {
    name: "x402 images at a size not sold",
    method: "POST",
    path: () => "/proxy/x402/v1/images/generations",
    body: { model: "dall-e-3", prompt: "a cat", size: "256x256" },
  },
  {
    name: "x402 image edit that is not multipart",
    method: "POST",
    path: () => "/proxy/x402/v1/images/edits",
    body: { model: "dall-e-2", prompt: "a hat" },
  },
  { name: "usage", method: "GET", path: () => `/proxy/${reader}/usage` },
  { name: "api keys", method: "GET", path: () => `/proxy/${reader}/keys` },
  // A key made here would differ between the two servers (its secret): compare the refusals.
  {
    name: "api key with an empty label",
    method: "POST",
    path: () => `/proxy/${reader}/keys`,
    body: { label: " " },
  },
  {
    name: "relabel an unknown api key",
    method: "PATCH",
    path: () => `/proxy/${reader}/keys/00000000-0000-4000-8000-000000000000`,
    body: { label: "x" },
  },
  {
    name: "rotate an unknown api key",
    method: "POST",
    path: () => `/proxy/${reader}/keys/00000000-0000-4000-8000-000000000000/rotate`,
  },
  {
    name: "revoke an unknown api key",
    method: "POST",
    path: () => `/proxy/${reader}/keys/00000000-0000-4000-8000-000000000000/revoke`,
  },
  { name: "funding options", method: "GET", path: () => `/proxy/${reader}/funding` },
  { name: "funding history", method: "GET", path: () => `/proxy/${reader}/funding/history` },
  {
    name: "fund by card",
    method: "POST",
    path: () => `/proxy/${reader}/fund/card`,
    body: { amount_usd: 20 },
  },
  { name: "card quote", method: "GET", path: () => `/proxy/${reader}/fund/card/quote?amount_usd=20` },
  { name: "card session", method: "GET", path: () => `/proxy/${reader}/fund/card/cs_test_unknown` },
  {
    name: "base deposit typed data (deposits off: 503)",
    method: "GET",
    path: () =>
      `/proxy/${reader}/fund/base/typed-data?from=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&amount_microunits=1000000`,
  },
  {
    name: "fund on base (deposits off: 503)",
    method: "POST",
    path: () => `/proxy/${reader}/fund/base`,
    body: { authorization: {}, signature: "0x", salt: "0x" },
  },
  {
    name: "stripe webhook",
    method: "POST",
    path: () => "/v1/webhooks/stripe",
    headers: () => ({ "stripe-signature": "t=1,v1=00", ...json }),
    body: { type: "checkout.session.completed" },
  },
  { name: "chat", method: "POST", path: () => `/proxy/${token}/v1/chat/completions`, body: chat(false) },
  {
    name: "chat stream",
    method: "POST",
    path: () => `/proxy/${token}/v1/chat/completions`,
    body: chat(true),
  },
  {
    name: "chat, bad token",
    method: "POST",
    path: () => "/proxy/not-a-token/v1/chat/completions",
    body: chat(false),
  },
  { name: "messages", method: "POST", path: () => `/proxy/${token}/v1/messages`, body: messages(false) },
  {
    name: "messages stream",
    method: "POST",
    path: () => `/proxy/${token}/v1/messages`,
    body: messages(true),
  },
  { name: "messages, bad JSON", method: "POST", path: () => `/proxy/${token}/v1/messages`, body: "{nope" },
  {
    name: "count_tokens",
    method: "POST",
    path: () => `/proxy/${token}/v1/messages/count_tokens`,
    body: { model: "claude-haiku-4-5", messages: [{ role: "user", content: "count me" }] },
  },
  {
    name: "responses",
    method: "POST",
    path: () => `/proxy/${token}/v1/responses`,
    body: { model: "gpt-4o-mini", input: "parity [fake:tokens=3]" },
  },
  {
    name: "responses stream",
    method: "POST",
    path: () => `/proxy/${token}/v1/responses`,
    body: { model: "gpt-4o-mini", input: "parity [fake:tokens=3]", stream: true },
  },
  { name: "x402 chat", method: "POST", path: () => "/proxy/x402/v1/chat/completions", body: chat(false) },
  { name: "x402 messages", method: "POST", path: () => "/proxy/x402/v1/messages", body: messages(false) },
  {
    name: "x402 wallet balance",
    method: "GET",
    path: () => "/proxy/x402/balance/GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS",
  },
  { name: "marketplace models", method: "GET", path: () => "/v1/marketplace/models" },
  { name: "model endpoints", method: "GET", path: () => "/v1/models/gpt-4o-mini/endpoints" },
  { name: "providers", method: "GET", path: () => "/v1/providers" },
  {
    name: "host enroll",
    method: "POST",
    path: () => "/v1/host/enroll",
    body: { display_name: "another", wallet: "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS" },
  },
  { name: "host profile", method: "GET", path: () => "/v1/host/profile", headers: asHost },
  { name: "host profile, no token", method: "GET", path: () => "/v1/host/profile" },
  { name: "host agent", method: "GET", path: () => "/v1/host/agent", headers: asHost },
  {
    name: "add relay key",
    method: "POST",
    path: () => "/v1/host/relay-keys",
    headers: asHost,
    body: { upstream: "together", api_key: "sk-parity-abcdefgh" },
  },
  { name: "list relay keys", method: "GET", path: () => "/v1/host/relay-keys", headers: asHost },
  {
    name: "revoke relay key",
    method: "DELETE",
    // The id is the one `prepare` adds on each side.
    path: () => `/v1/host/relay-keys/${relayKeyId || "id"}`,
    headers: asHost,
    prepare: async (base) => {
      relayKeyId = await addRelayKey(base);
      return relayKeyId;
    },
  },
  {
    name: "put listing",
    method: "PUT",
    path: () => "/v1/host/listings",
    headers: asHost,
    prepare: async (base) => {
      relayKeyId = await addRelayKey(base);
      return relayKeyId;
    },
    body: () => ({ model: "gpt-4o-mini", relay_key_id: relayKeyId, input_per_1m: 1000, output_per_1m: 1000 }),
  },
  { name: "list listings", method: "GET", path: () => "/v1/host/listings", headers: asHost },
  {
    name: "delete listing",
    method: "DELETE",
    path: () => "/v1/host/listings/gpt-4o-mini",
    headers: asHost,
    prepare: async (base) => {
      const key = await addRelayKey(base);
      await fetch(`${base}/v1/host/listings`, {
        method: "PUT",
        headers: asHost(),
        body: JSON.stringify({
          model: "gpt-4o-mini",
          relay_key_id: key,
          input_per_1m: 1000,
          output_per_1m: 1000,
        }),
      });
      return key;
    },
  },
  {
    name: "admin credit",
    method: "POST",
    path: () => "/v1/admin/credits",
    headers: asAdmin,
    body: () => ({ api_token: token, amount_microunits: 1, reason: "parity" }),
  },
  {
    name: "admin resume auto top-up",
    method: "POST",
    path: () => "/v1/admin/auto-top-up/resume",
    headers: asAdmin,
    body: () => ({ api_token: token, reason: "parity" }),
  },
  {
    name: "admin credit, bare token",
    method: "POST",
    path: () => "/v1/admin/credits",
    headers: () => ({ authorization: testAdminToken }),
  },
  {
    name: "activate host",
    method: "POST",
    path: () => `/v1/admin/hosts/${providerId}/activate`,
    headers: asAdmin,
  },
  {
    name: "suspend host",
    method: "POST",
    path: () => `/v1/admin/hosts/${providerId}/suspend`,
    headers: asAdmin,
  },
  {
    name: "host trust record",
    method: "GET",
    path: () => `/v1/admin/hosts/${providerId}/trust`,
    headers: asAdmin,
  },
  {
    name: "slash host (unknown id)",
    method: "POST",
    path: () => "/v1/admin/hosts/00000000-0000-4000-8000-000000000000/slash",
    headers: asAdmin,
    body: { reason: "parity" },
  },
  {
    name: "unmatched deposits",
    method: "GET",
    path: () => "/v1/admin/deposits/unmatched",
    headers: asAdmin,
  },
  {
    name: "assign an unknown deposit",
    method: "POST",
    path: () => `/v1/admin/deposits/${"1".repeat(88)}/assign`,
    headers: asAdmin,
    body: () => ({ api_token: token, note: "parity" }),
  },
  {
    name: "refund an unknown deposit",
    method: "POST",
    path: () => `/v1/admin/deposits/${"1".repeat(88)}/refund`,
    headers: asAdmin,
    body: { note: "parity" },
  },
  {
    name: "catalog changes of an unknown model",
    method: "GET",
    path: () => "/v1/admin/catalog/changes?model=no-such-model",
    headers: asAdmin,
  },
  {
    name: "price an unknown model",
    method: "PUT",
    path: () => "/v1/admin/catalog/models/no-such-model/prices/openai",
    headers: asAdmin,
    body: { input_per_1m: 1, output_per_1m: 1 },
  },
  {
    name: "edit a model with an unknown field",
    method: "PUT",
    path: () => "/v1/admin/catalog/models/gpt-4o-mini",
    headers: asAdmin,
    body: { context_window: 1, surprise: true },
  },
  {
    name: "catalog refresh without the admin token",
    method: "POST",
    path: () => "/v1/admin/catalog/refresh",
  },
  { name: "host balance", method: "GET", path: () => "/v1/host/balance", headers: asHost },
  { name: "host transactions", method: "GET", path: () => "/v1/host/transactions", headers: asHost },
  {
    name: "host withdraw without an idempotency key",
    method: "POST",
    path: () => "/v1/host/withdraw",
    headers: asHost,
    body: { amount_microunits: "1" },
  },
  // Unauthenticated: retiring for real would change what the second server answers.
  { name: "host retire without a host token", method: "POST", path: () => "/v1/host/retire", body: {} },
  {
    name: "approve an unknown payout",
    method: "POST",
    path: () => "/v1/admin/payouts/00000000-0000-4000-8000-000000000000/approve",
    headers: asAdmin,
  },
  // Counters move between the two calls, so compare the refusal rather than the text.
  { name: "metrics without the admin token", method: "GET", path: () => "/metrics" },
  { name: "reconciliation without the admin token", method: "GET", path: () => "/v1/admin/reconcile" },
  { name: "funding setup", method: "GET", path: () => "/v1/admin/funding", headers: asAdmin },
  { name: "balance alert", method: "GET", path: () => `/proxy/${reader}/balance-alert` },
  {
    name: "balance alert below one microunit",
    method: "PUT",
    path: () => `/proxy/${reader}/balance-alert`,
    body: { threshold_microunits: 0 },
  },
  { name: "remove a balance alert", method: "DELETE", path: () => `/proxy/${reader}/balance-alert` },
  { name: "auto top-up", method: "GET", path: () => `/proxy/${reader}/auto-top-up` },
  {
    name: "auto top-up on without a card",
    method: "PUT",
    path: () => `/proxy/${reader}/auto-top-up`,
    body: { enabled: true, threshold_microunits: 5000000, amount_cents: 2000, monthly_cap_cents: 10000 },
  },
  { name: "save a card (cards off: 503)", method: "POST", path: () => `/proxy/${reader}/auto-top-up/card` },
  { name: "wrong method", method: "GET", path: () => `/proxy/${token}/v1/chat/completions` },
  { name: "wrong method on an x402 path", method: "PUT", path: () => "/proxy/x402/v1/messages" },
  {
    name: "preflight",
    method: "OPTIONS",
    path: () => "/proxy/x402/v1/messages",
    headers: () => ({ origin: "https://app.example", "access-control-request-headers": "payment-signature" }),
  },
];

async function call(base: string, testCase: Case): Promise<Answer> {
  await testCase.prepare?.(base);
  const payload = typeof testCase.body === "function" ? (testCase.body as () => unknown)() : testCase.body;
  const response = await fetch(`${base}${testCase.path()}`, {
    method: testCase.method,
    headers: testCase.headers?.() ?? (payload === undefined ? {} : json),
    ...(payload === undefined
      ? {}
      : { body: typeof payload === "string" ? payload : JSON.stringify(payload) }),
  });
  return readAnswer(response, base);
}

const comparedHeaders = [
  "content-type",
  "access-control-allow-origin",
  "access-control-expose-headers",
  "access-control-allow-headers",
  "allow",
  "cache-control",
  "x-pod-route",
  "x-pod-provider-id",
  "x-should-retry",
  "x-pod-estimated",
  "retry-after",
];

describe("server.ts and the app/ route files give the same answers over HTTP", () => {
  it("covers every manifest route", () => {
    const covered = new Set<string>();
    for (const testCase of cases) {
      for (const route of apiRoutes) {
        const pattern = new RegExp(`^${route.path.replace(/:[a-z_]+/g, "[^/]+")}$`);
        if (route.method === testCase.method && pattern.test(testCase.path().split("?")[0] ?? ""))
          covered.add(`${route.method} ${route.path}`);
      }
    }
    const all = apiRoutes.map((route) => `${route.method} ${route.path}`);
    expect(all.filter((route) => !covered.has(route))).toEqual([]);
  });

  for (const testCase of cases) {
    it(testCase.name, async () => {
      const fromServer = await call(gateway.baseUrl, testCase);
      const fromNext = await call(nextUrl, testCase);
      expect(fromNext.status, JSON.stringify(fromNext.body)).toBe(fromServer.status);
      expect(fromNext.body).toEqual(fromServer.body);
      for (const header of comparedHeaders) {
        expect(fromNext.headers.get(header), header).toBe(fromServer.headers.get(header));
      }
      const requestId = (answer: Answer) =>
        answer.headers.get("x-request-id") ?? answer.headers.get("request-id");
      expect(requestId(fromServer)).toMatch(/^req_/);
      expect(requestId(fromNext)).toMatch(/^req_/);
    });
  }
});
