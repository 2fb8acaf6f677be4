import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BalanceAlertEvent } from "@pod-gateway/contracts/balance-watch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendBalanceAlert } from "./send-balance-alert";
import type { ResolveHost } from "./webhook-target";

/**
 * DNS rebinding against the alert webhook: a name that answers a public address when it is
 * checked and 127.0.0.1 when it is resolved again. The alert must go to the address that was
 * checked, never to the gateway's own network (a server on 127.0.0.1 stands for it here).
 */
let server: Server;
let port: number;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    received.push(`${request.method} ${request.url}`);
    request.resume();
    response.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const event = { type: "balance.low" } as unknown as BalanceAlertEvent;

/** Answers each lookup in turn (the last answer repeats), and counts them. */
function rebinding(...answers: string[]): ResolveHost & { calls: number } {
  const resolve = async () => {
    const answer = answers[Math.min(resolve.calls, answers.length - 1)] ?? "";
    resolve.calls += 1;
    return [{ address: answer, family: 4 }];
  };
  resolve.calls = 0;
  return resolve;
}

describe("alert webhooks are sent to the address that was checked", () => {
  it("a name that rebinds to 127.0.0.1 after the check never reaches it", async () => {
    received.length = 0;
    const resolve = rebinding("198.51.100.7", "127.0.0.1");
    // `localhost`: anything that resolves the name again (the resolver above, or the system's)
    // reaches the server on 127.0.0.1, so only a connection to the checked address stays away.
    const outcome = await sendBalanceAlert(
      { url: `http://localhost:${port}/hook`, secret: "s", allowPrivate: false },
      event,
      { resolve, timeoutMs: 1_000 },
    );
    // Resolved once, for the check; the connection went to that public address (unreachable here).
    expect(resolve.calls).toBe(1);
    expect(received).toEqual([]);
    expect(outcome).not.toMatch(/^delivered/);
  });

  it("the pinned address is where the alert goes, once, under the URL's own host name", async () => {
    received.length = 0;
    const resolve = rebinding("127.0.0.1", "198.51.100.7");
    const outcome = await sendBalanceAlert(
      { url: `http://rebind.example:${port}/hook`, secret: "s", allowPrivate: true },
      event,
      { resolve, timeoutMs: 5_000 },
    );
    expect(outcome).toBe("delivered (HTTP 200)");
    expect(resolve.calls).toBe(1);
    expect(received).toEqual(["POST /hook"]);
  });

  it("a name that answers a private address at the check is refused before any connection", async () => {
    received.length = 0;
    const outcome = await sendBalanceAlert(
      { url: `http://rebind.example:${port}/hook`, secret: "s", allowPrivate: false },
      event,
      { resolve: rebinding("127.0.0.1") },
    );
    expect(outcome).toMatch(/private address/);
    expect(received).toEqual([]);
  });
});
