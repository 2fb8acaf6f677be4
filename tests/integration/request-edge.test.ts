import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as registerRoute from "../../app/v1/register/route";
import { startTestGateway, type TestGateway, testAdminToken } from "../helpers/gateway";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({
    env: { UPSTREAM_TIMEOUT_MS: "400", REQUEST_TIMEOUT_MS: "1500" },
  });
});
afterAll(async () => {
  await gateway.close();
});

/** Sends raw bytes and returns the whole answer; fails if the server has not answered within 5 s. */
function rawRequest(text: string): Promise<string> {
  const { port } = new URL(gateway.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1", () => socket.write(text));
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within 5 s; got: ${received.slice(0, 200)}`));
    }, 5000);
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on("error", reject);
  });
}

const statusOf = (answer: string) => Number(answer.split(" ")[1]);
/** The body of a raw answer, de-chunked when it came with Transfer-Encoding: chunked. */
function bodyText(answer: string): string {
  const [head = "", rest = ""] = [
    answer.slice(0, answer.indexOf("\r\n\r\n")),
    answer.slice(answer.indexOf("\r\n\r\n") + 4),
  ];
  if (!/transfer-encoding: chunked/i.test(head)) return rest;
  let body = "";
  let remaining = rest;
  for (;;) {
    const lineEnd = remaining.indexOf("\r\n");
    const size = Number.parseInt(remaining.slice(0, lineEnd), 16);
    if (!size) return body;
    body += remaining.slice(lineEnd + 2, lineEnd + 2 + size);
    remaining = remaining.slice(lineEnd + 2 + size + 2);
  }
}
const bodyOf = (answer: string) =>
  JSON.parse(bodyText(answer)) as {
    error: { type: string; message: string };
    request_id: string;
  };
const get = (target: string, method = "GET") =>
  rawRequest(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);

describe("the request line is checked before anything routes on it", () => {
  it.each([
    "/./v1/register",
    "/health/../v1/register",
    "/%2e/v1/register",
    "/proxy//balance",
    "/v1\\register",
  ])("a non-canonical path (%s) is a 400, never served by a side door", async (target) => {
    const answer = await get(target, "POST");
    expect(statusOf(answer)).toBe(400);
    expect(bodyOf(answer).error.type).toBe("bad_request");
    expect(bodyOf(answer).request_id).toMatch(/^req_/);
  });

  it("TRACE and unknown methods are answered 405 at once", async () => {
    for (const method of ["TRACE", "PROPFIND", "PATCH"]) {
      const answer = await get("/health", method);
      expect(statusOf(answer), method).toBe(405);
      expect(bodyOf(answer).error.type).toBe("method_not_allowed");
    }
    // A verb node's parser does not know is refused by the parser itself, also at once.
    expect(statusOf(await get("/health", "BREW"))).toBe(400);
  });

  it("malformed percent-encoding in the path is a 400, not a 500", async () => {
    const answer = await get("/proxy/%E0%A4%A/balance");
    expect(statusOf(answer)).toBe(400);
    expect(bodyOf(answer).error.message).toMatch(/percent-encoding/);
  });

  it("a POST whose path holds bytes a URL parser would escape is refused like any unknown token", async () => {
    // The adapter hands the target on as sent (no URL parse): such bytes must still reach the
    // token lookup as a mere unknown token, with the answer in the caller's dialect.
    const body = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    for (const target of ['/proxy/a"b<c>{d}|e^f`g/v1/chat/completions', "/proxy/%22x%22/v1/messages"]) {
      const answer = await rawRequest(
        `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(statusOf(answer), target).toBe(401);
      expect(bodyOf(answer).request_id).toMatch(/^req_/);
    }
  });

  it("a NUL or control character in a path parameter is a 400, never a database error", async () => {
    const { token } = await gateway.register();
    for (const path of [
      `/proxy/${token}/fund/card/%00`,
      `/proxy/${token}/fund/card/cs%0Atest`,
      "/proxy/%00/balance",
    ]) {
      const answer = await get(path);
      expect(statusOf(answer)).toBe(400);
      expect(bodyOf(answer).error.message).toMatch(/control characters/);
    }
  });

  it("a body declared but never sent is cut off with a 408 within REQUEST_TIMEOUT_MS, not held for minutes", async () => {
    const started = Date.now();
    const answer = await rawRequest(
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    );
    expect(statusOf(answer)).toBe(408);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("an absolute-form target is a 400, never a redirect to that host", async () => {
    const answer = await get("http://evil.example/health");
    expect(statusOf(answer)).toBe(400);
    expect(answer.toLowerCase()).not.toContain("location:");
    expect(answer).not.toContain("evil.example");
  });
});

describe("route files do not trust a client-supplied x-pod-client-ip", () => {
  let limited: TestGateway;
  beforeAll(async () => {
    // Its own gateway: the route files share the process-wide app context of the newest one.
    limited = await startTestGateway({ env: { REGISTER_RATE_LIMIT_PER_MINUTE: "3" } });
  });
  afterAll(async () => {
    await limited.close();
  });

  it("rotating the header does not escape the registration limit", async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const response = await registerRoute.POST(
        new Request(`${limited.baseUrl}/v1/register`, {
          method: "POST",
          headers: { "x-pod-client-ip": `10.0.0.${attempt}`, "x-forwarded-for": `10.1.0.${attempt}` },
        }),
      );
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});

describe("error vocabulary at the edges", () => {
  it("the admin API needs the Bearer scheme: a bare token is refused", async () => {
    const { token } = await gateway.register();
    const credit = (authorization: string) =>
      fetch(`${gateway.baseUrl}/v1/admin/credits`, {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body: JSON.stringify({ api_token: token, amount_microunits: 10, reason: "edge" }),
      });
    const bare = await credit(testAdminToken);
    expect(bare.status).toBe(401);
    expect(((await bare.json()) as { error: { type: string } }).error.type).toBe("unauthorized");
    expect((await credit(`Bearer ${testAdminToken}`)).status).toBe(200);
    // Shorter, longer and same-length wrong tokens are all one refusal (compared as digests).
    for (const wrong of [
      testAdminToken.slice(0, -1),
      `${testAdminToken}x`,
      testAdminToken.replace(/.$/, "X"),
    ])
      expect((await credit(`Bearer ${wrong}`)).status).toBe(401);
  });

  it("metrics and payout approval take the same admin credential, with the same refusal", async () => {
    const unknownPayout = "/v1/admin/payouts/00000000-0000-4000-8000-000000000000/approve";
    const call = (path: string, method: string, authorization: string) =>
      fetch(`${gateway.baseUrl}${path}`, { method, headers: { authorization } });
    const creditRefusal = (await (await call("/v1/admin/credits", "POST", testAdminToken)).json()) as {
      error: unknown;
    };
    for (const [path, method] of [
      ["/metrics", "GET"],
      [unknownPayout, "POST"],
    ] as const) {
      const bare = await call(path, method, testAdminToken);
      expect(bare.status, `${method} ${path} with a bare token`).toBe(401);
      const body = (await bare.json()) as { error: unknown; request_id: string };
      expect(body.error).toEqual(creditRefusal.error);
      expect(body.request_id).toBe(bare.headers.get("x-request-id"));
    }
    const metrics = await call("/metrics", "GET", `Bearer ${testAdminToken}`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toContain("text/plain");
    // Past the credential check, an unknown payout is the handler's 404.
    const approve = await call(unknownPayout, "POST", `Bearer ${testAdminToken}`);
    expect(approve.status).toBe(404);
  });

  it("/balance of an unknown or malformed token is the 401 every token route gives", async () => {
    for (const token of ["00000000-0000-4000-8000-000000000000", "not-a-token"]) {
      const response = await fetch(`${gateway.baseUrl}/proxy/${token}/balance`);
      expect(response.status).toBe(401);
      const body = (await response.json()) as { error: { type: string; message: string } };
      expect(body.error.type).toBe("unauthorized");
    }
    const unknown = await fetch(`${gateway.baseUrl}/proxy/00000000-0000-4000-8000-000000000000/balance`);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe(
      "unauthorized: token not found or not activated",
    );
  });

  it("/v1/messages without max_tokens is a 400, as on Anthropic's API, and moves no money", async () => {
    const token = await gateway.createFundedToken(100_000n);
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringMatching(/max_tokens/) },
    });
    expect((await gateway.balanceOf(token)).balance).toBe(100_000n);
  });

  const chat = (token: string, content: string) =>
    fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", max_tokens: 10, messages: [{ role: "user", content }] }),
    });

  it("an upstream 429 with no other source to serve is the caller's 429 with Retry-After", async () => {
    const token = await gateway.createFundedToken(100_000n);
    const response = await chat(token, "[fake:error=429] hi");
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe("rate_limited");
    expect((await gateway.balanceOf(token)).balance).toBe(100_000n);
  });

  it("an upstream that sends no headers in time is the 504 timeout kind", async () => {
    const token = await gateway.createFundedToken(100_000n);
    const response = await chat(token, "[fake:hang=1500] hi");
    expect(response.status).toBe(504);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe("upstream_timeout");
    expect((await gateway.balanceOf(token)).balance).toBe(100_000n);
  });

  it("an upstream's error page is mapped to a kind and never echoed", async () => {
    const token = await gateway.createFundedToken(100_000n);
    const response = await chat(token, "[fake:html=400] hi");
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).not.toContain("upstream-internal-detail");
    expect(text).not.toContain("<html>");
    expect(JSON.parse(text)).toMatchObject({ error: { type: "bad_request" } });
  });
});
