import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as healthRoute from "../../app/health/route";
import * as balanceRoute from "../../app/proxy/[token]/balance/route";
import * as chatRoute from "../../app/proxy/[token]/v1/chat/completions/route";
import * as messagesRoute from "../../app/proxy/[token]/v1/messages/route";
import * as modelsRoute from "../../app/proxy/[token]/v1/models/route";
import * as registerRoute from "../../app/v1/register/route";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

let gateway: TestGateway;
let token: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  token = await gateway.createFundedToken(1_000_000n);
});
afterAll(async () => {
  await gateway.close();
});

type RouteHandler = (
  request: Request,
  context: { params: Promise<Record<string, string>> },
) => Promise<Response>;

/** Calls a route file's export the way Next does, on the same app context the server uses. */
function viaRouteFile(
  handler: RouteHandler,
  path: string,
  init: RequestInit = {},
  params: Record<string, string> = {},
) {
  return handler(new Request(`${gateway.baseUrl}${path}`, init), { params: Promise.resolve(params) });
}

const chatBody = JSON.stringify({
  model: "gpt-4o-mini",
  max_tokens: 10,
  messages: [{ role: "user", content: "parity [fake:tokens=3]" }],
});
const post = { method: "POST", headers: { "content-type": "application/json" }, body: chatBody };

/** Fields that legitimately differ between two calls (fresh ids, balances after each call). */
function stable(body: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, created: _created, ...rest } = body;
  return rest;
}

describe("app/ route files and server.ts give the same answers", () => {
  it("models, balance and health", async () => {
    for (const [handler, path, params] of [
      [modelsRoute.GET, `/proxy/${token}/v1/models`, { token }],
      [balanceRoute.GET, `/proxy/${token}/balance`, { token }],
      [healthRoute.GET, "/health", {}],
    ] as const) {
      const fromServer = await fetch(`${gateway.baseUrl}${path}`);
      const fromRoute = await viaRouteFile(handler as RouteHandler, path, {}, params);
      expect(fromRoute.status).toBe(fromServer.status);
      expect(await fromRoute.json()).toEqual(await fromServer.json());
    }
  });

  it("chat completions: same completion, same headers", async () => {
    const fromServer = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, post);
    const fromRoute = await viaRouteFile(
      chatRoute.POST as RouteHandler,
      `/proxy/${token}/v1/chat/completions`,
      post,
      { token },
    );
    expect(fromRoute.status).toBe(200);
    expect(stable(await fromRoute.json())).toEqual(stable(await fromServer.json()));
    for (const header of ["x-pod-route", "x-pod-provider-id", "x-should-retry", "content-type"]) {
      expect(fromRoute.headers.get(header)).toBe(fromServer.headers.get(header));
    }
  });

  it("errors: same status and envelope in both dialects", async () => {
    const badToken = "not-a-token";
    const serverChat = await fetch(`${gateway.baseUrl}/proxy/${badToken}/v1/chat/completions`, post);
    const routeChat = await viaRouteFile(
      chatRoute.POST as RouteHandler,
      `/proxy/${badToken}/v1/chat/completions`,
      post,
      { token: badToken },
    );
    expect(routeChat.status).toBe(401);
    expect(await routeChat.json()).toEqual(await serverChat.json());
    const serverMessages = await fetch(`${gateway.baseUrl}/proxy/${badToken}/v1/messages`, post);
    const routeMessages = await viaRouteFile(
      messagesRoute.POST as RouteHandler,
      `/proxy/${badToken}/v1/messages`,
      post,
      { token: badToken },
    );
    expect(routeMessages.status).toBe(serverMessages.status);
    expect(await routeMessages.json()).toEqual(await serverMessages.json());
  });

  it("register: same shape", async () => {
    const fromServer = (await (
      await fetch(`${gateway.baseUrl}/v1/register`, { method: "POST" })
    ).json()) as Record<string, unknown>;
    const fromRoute = (await (
      await viaRouteFile(registerRoute.POST as RouteHandler, "/v1/register", { method: "POST" })
    ).json()) as Record<string, unknown>;
    expect(Object.keys(fromRoute).sort()).toEqual(Object.keys(fromServer).sort());
    expect(fromRoute.status).toBe(fromServer.status);
  });
});
