import { expect } from "vitest";

/**
 * A token registered on a gateway over HTTP and credited `amount` by its admin API: what a test
 * driving gateway processes needs to spend. `creditAt` is another replica to credit it through.
 */
export async function registerFundedToken(
  url: string,
  adminToken: string,
  amount: bigint,
  creditAt: string = url,
): Promise<string> {
  const registered = (await (await fetch(`${url}/v1/register`, { method: "POST" })).json()) as {
    api_token: string;
  };
  const credited = await fetch(`${creditAt}/v1/admin/credits`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({
      api_token: registered.api_token,
      amount_microunits: amount.toString(),
      reason: "test",
    }),
  });
  expect(credited.status).toBe(200);
  return registered.api_token;
}
