import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as balanceRoute from "../../../app/proxy/x402/balance/[wallet]/route";
import * as chatRoute from "../../../app/proxy/x402/v1/chat/completions/route";
import * as messagesRoute from "../../../app/proxy/x402/v1/messages/route";
import { chatBody, startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";
import { decodeQuote } from "../../helpers/x402-self-broadcast-client";

let x402: X402TestGateway;

beforeAll(async () => {
  x402 = await startX402TestGateway();
});
afterAll(async () => {
  await x402?.close();
});

type RouteHandler = (
  request: Request,
  context: { params: Promise<Record<string, string>> },
) => Promise<Response>;

/** Calls a route file's export the way Next does, on the app context the server installed. */
function viaRouteFile(
  handler: RouteHandler,
  path: string,
  init: RequestInit,
  params: Record<string, string> = {},
) {
  return handler(new Request(`${x402.gateway.baseUrl}${path}`, init), { params: Promise.resolve(params) });
}

describe("app/proxy/x402 route files answer like server.ts", () => {
  it("quotes on both dialects with the same document shape and binding", async () => {
    for (const [handler, path, body] of [
      [chatRoute.POST, "/proxy/x402/v1/chat/completions", chatBody("route file")],
      [
        messagesRoute.POST,
        "/proxy/x402/v1/messages",
        JSON.stringify({
          model: "claude-haiku-4-5",
          max_tokens: 20,
          messages: [{ role: "user", content: "hi" }],
        }),
      ],
    ] as const) {
      const init = { method: "POST", headers: { "content-type": "application/json" }, body };
      const fromRoute = await viaRouteFile(handler as RouteHandler, path, init);
      const fromServer = await fetch(`${x402.gateway.baseUrl}${path}`, init);
      expect(fromRoute.status).toBe(402);
      expect(fromServer.status).toBe(402);
      const [routeQuote, serverQuote] = [decodeQuote(fromRoute), decodeQuote(fromServer)];
      expect(routeQuote.accepts.map((entry) => [entry.asset, entry.body_hash, entry.amount])).toEqual(
        serverQuote.accepts.map((entry) => [entry.asset, entry.body_hash, entry.amount]),
      );
      expect(fromRoute.headers.get("access-control-expose-headers")).toBe(
        fromServer.headers.get("access-control-expose-headers"),
      );
    }
  });

  it("answers preflights and the wallet balance", async () => {
    const preflight = () =>
      new Request(`${x402.gateway.baseUrl}/proxy/x402/v1/messages`, {
        method: "OPTIONS",
        headers: { "access-control-request-headers": "payment-signature, content-type" },
      });
    const viaServer = await fetch(preflight());
    for (const viaRoute of [await chatRoute.OPTIONS(preflight()), await messagesRoute.OPTIONS(preflight())]) {
      expect(viaRoute.status).toBe(204);
      expect(viaRoute.headers.get("access-control-allow-headers")).toBe("payment-signature, content-type");
      expect(viaRoute.headers.get("access-control-expose-headers")).toBe(
        viaServer.headers.get("access-control-expose-headers"),
      );
    }
    const wallet = x402.chain.payTo.address;
    const path = `/proxy/x402/balance/${wallet}`;
    const fromRoute = await viaRouteFile(balanceRoute.GET as RouteHandler, path, {}, { wallet });
    const fromServer = await fetch(`${x402.gateway.baseUrl}${path}`);
    expect(await fromRoute.json()).toEqual(await fromServer.json());
    const invalid = await fetch(`${x402.gateway.baseUrl}/proxy/x402/balance/not-a-wallet`);
    expect(invalid.status).toBe(400);
  });
});
