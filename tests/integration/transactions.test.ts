import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as transactionsRoute from "../../app/proxy/[token]/transactions/route";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

interface Listing {
  transactions: {
    kind: string;
    amount_microunits: number;
    model?: string;
    output_tokens?: number;
    reason?: string;
  }[];
  next_cursor: string | null;
}

const list = async (token: string, query = "") => {
  const response = await transactionsRoute.GET(
    new Request(`${gateway.baseUrl}/proxy/${token}/transactions${query}`),
    {
      params: Promise.resolve({ token }),
    },
  );
  return { status: response.status, body: (await response.json()) as Listing };
};

describe("GET /proxy/<token>/transactions", () => {
  it("lists the credit and each billed request with its usage, newest first, with a cursor", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    for (const tokens of [3, 4]) {
      await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "gpt-4o-mini",
          messages: [{ role: "user", content: `[fake:tokens=${tokens}]` }],
        }),
      });
    }
    const all = await list(token);
    expect(all.status).toBe(200);
    expect(all.body.transactions.map((entry) => entry.kind)).toEqual([
      "inference",
      "inference",
      "admin_credit",
    ]);
    expect(all.body.transactions[0]).toMatchObject({ model: "gpt-4o-mini", output_tokens: 4 });
    expect(all.body.transactions[2]).toMatchObject({ amount_microunits: 1_000_000, reason: "test funding" });
    const spent = all.body.transactions
      .slice(0, 2)
      .reduce((total, entry) => total - entry.amount_microunits, 0);
    expect(BigInt(1_000_000 - spent)).toBe((await gateway.balanceOf(token)).balance);

    const firstPage = await list(token, "?limit=2");
    expect(firstPage.body.transactions).toHaveLength(2);
    expect(firstPage.body.next_cursor).not.toBeNull();
    const secondPage = await list(token, `?limit=2&before=${firstPage.body.next_cursor}`);
    expect(secondPage.body.transactions.map((entry) => entry.kind)).toEqual(["admin_credit"]);
  });

  it("is served by server.ts as well as the route file", async () => {
    const token = await gateway.createFundedToken(7n);
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/transactions`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as Listing).transactions).toHaveLength(1);
  });

  it("rejects bad paging and unknown tokens", async () => {
    const token = await gateway.createFundedToken(1n);
    expect((await list(token, "?limit=0")).status).toBe(400);
    expect((await list(token, "?before=abc")).status).toBe(400);
    expect((await list("00000000-0000-4000-8000-000000000000")).status).toBe(401);
  });
});
