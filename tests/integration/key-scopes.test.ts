import type { IssuedKeyResponse } from "@pod-gateway/contracts/account-keys";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/**
 * Key scopes, tried as a sub-key trying to overreach: another key's (or the token's) stored
 * response read, continued or deleted; the account's activity, usage, funding history and
 * receipts read; keys and settings managed; scopes granted beyond its own.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
}, 60_000);
afterAll(async () => {
  await gateway?.close();
});

const client = (credential: string) =>
  new OpenAI({ baseURL: `${gateway.baseUrl}/proxy/${credential}/v1`, apiKey: "pod", maxRetries: 0 });

async function call(credential: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${gateway.baseUrl}/proxy/${credential}${path}`, {
    ...init,
    headers: { "content-type": "application/json", ...init.headers },
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text.startsWith("{") ? JSON.parse(text) : text) as Record<string, unknown>,
  };
}

async function createKey(credential: string, body: Record<string, unknown>) {
  const created = await call(credential, "/keys", { method: "POST", body: JSON.stringify(body) });
  return created as { status: number; body: IssuedKeyResponse & Record<string, unknown> };
}

async function issue(token: string, label: string, scopes?: string[]): Promise<IssuedKeyResponse> {
  const created = await createKey(token, { label, ...(scopes ? { scopes } : {}) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const refusedStatus = async (promise: Promise<unknown>) =>
  ((await promise.catch((error: unknown) => error)) as { status?: number }).status;

describe("key scopes", () => {
  it("a key reads, continues and deletes only the stored responses it made; the token sees all", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    const alice = await issue(token, "alice");
    const bob = await issue(token, "bob");
    expect(alice.key.scopes).toEqual(["inference"]);

    const mine = await client(alice.api_key).responses.create({
      model: "gpt-4o-mini",
      input: "a [fake:tokens=2]",
    });
    const owners = await client(token).responses.create({ model: "gpt-4o-mini", input: "t [fake:tokens=2]" });

    // Bob cannot read, continue or delete Alice's response, nor the token's: a 404 as for an unknown id.
    for (const id of [mine.id, owners.id]) {
      expect(await refusedStatus(client(bob.api_key).responses.retrieve(id))).toBe(404);
      expect(await refusedStatus(client(bob.api_key).responses.delete(id))).toBe(404);
      expect(
        await refusedStatus(
          client(bob.api_key).responses.create({
            model: "gpt-4o-mini",
            input: "go on",
            previous_response_id: id,
          }),
        ),
      ).toBe(404);
    }
    // Alice cannot reach the token's either, but uses her own.
    expect(await refusedStatus(client(alice.api_key).responses.retrieve(owners.id))).toBe(404);
    expect((await client(alice.api_key).responses.retrieve(mine.id)).id).toBe(mine.id);
    const next = await client(alice.api_key).responses.create({
      model: "gpt-4o-mini",
      input: "go on",
      previous_response_id: mine.id,
    });
    expect(next.previous_response_id).toBe(mine.id);
    // The account's token sees every key's responses, and may delete them.
    expect((await client(token).responses.retrieve(mine.id)).id).toBe(mine.id);
    await client(token).responses.delete(mine.id);
    expect(await refusedStatus(client(alice.api_key).responses.retrieve(mine.id))).toBe(404);
  }, 60_000);

  it("a key without the read scope sees its own requests only; with it, the account's", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    const alice = await issue(token, "alice");
    const bob = await issue(token, "bob");
    const reader = await issue(token, "reader", ["read"]);
    expect(reader.key.scopes).toEqual(["inference", "read"]);
    for (const [credential, times] of [
      [alice.api_key, 2],
      [bob.api_key, 3],
      [token, 1],
    ] as const)
      for (let index = 0; index < times; index += 1)
        await client(credential).chat.completions.create({
          model: "gpt-4o-mini",
          max_tokens: 3,
          messages: [{ role: "user", content: "hi [fake:tokens=2]" }],
        });
    await gateway.app.leases?.returnAll();
    // Receipts are stored a few ms behind their answers: written now, every read below sees the same rows.
    await gateway.app.receipts?.store.flush();

    const rows = async (credential: string) =>
      ((await call(credential, "/transactions")).body.transactions as Array<{
        kind: string;
        api_key: string | null;
      }>) ?? [];
    const aliceRows = await rows(alice.api_key);
    expect(aliceRows.map((row) => row.api_key)).toEqual(["alice", "alice"]);
    // No card or deposit credits, no other key's requests, none of the token's.
    expect((await rows(bob.api_key)).map((row) => row.api_key)).toEqual(["bob", "bob", "bob"]);
    const everything = await rows(reader.api_key);
    expect(everything.filter((row) => row.kind === "inference").length).toBe(6);
    expect(everything.some((row) => row.kind !== "inference")).toBe(true);
    expect(await rows(token)).toEqual(everything);

    const csv = (await call(alice.api_key, "/transactions/export")).body as unknown as string;
    expect(csv.trim().split("\n").length).toBe(1 + 2);
    expect(csv).not.toContain("bob");

    const usage = async (credential: string) =>
      (await call(credential, "/usage")).body.spend as { requests_this_month: number };
    expect((await usage(alice.api_key)).requests_this_month).toBe(2);
    expect((await usage(bob.api_key)).requests_this_month).toBe(3);
    expect((await usage(reader.api_key)).requests_this_month).toBe(6);

    // Funding history and card receipts are the account's, not a key's: read scope only.
    const history = await call(alice.api_key, "/funding/history");
    expect(history.status).toBe(403);
    expect(JSON.stringify(history.body)).toContain("read");
    expect((await call(reader.api_key, "/funding/history")).status).toBe(200);
    const receipt = await call(alice.api_key, "/transactions/00000000-0000-4000-8000-000000000000/receipt");
    expect(receipt.status).toBe(403);
  }, 60_000);

  it("only the token and keys with the manage scope manage; a key grants no scope it lacks", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    const plain = await issue(token, "plain");
    const reader = await issue(token, "reader", ["read"]);
    const manager = await issue(token, "manager", ["manage"]);
    const limited = await issue(token, "limited manager", ["manage", "read"]);
    await call(token, `/keys/${limited.key.id}`, {
      method: "PATCH",
      body: JSON.stringify({ limit: { amount_microunits: 1_000, period: "day" } }),
    });

    for (const credential of [plain.api_key, reader.api_key]) {
      expect((await call(credential, "/keys")).status).toBe(403);
      expect((await createKey(credential, { label: "x" })).status).toBe(403);
      expect((await call(credential, `/keys/${plain.key.id}/revoke`, { method: "POST" })).status).toBe(403);
      expect((await call(credential, "/auto-top-up")).status).toBe(403);
      expect((await call(credential, "/balance-alert")).status).toBe(403);
    }
    // A manager lists and creates keys, but not with a scope it does not hold.
    expect((await call(manager.api_key, "/keys")).status).toBe(200);
    expect((await createKey(manager.api_key, { label: "child" })).status).toBe(201);
    const escalation = await createKey(manager.api_key, { label: "child", scopes: ["read"] });
    expect(escalation.status).toBe(403);
    // Nor lift its own limit.
    const lift = await call(limited.api_key, `/keys/${limited.key.id}`, {
      method: "PATCH",
      body: JSON.stringify({ limit: null }),
    });
    expect(lift.status).toBe(403);
    expect((await createKey(limited.api_key, { label: "reader child", scopes: ["read"] })).status).toBe(201);
    // Unknown scopes are a 400.
    expect((await createKey(token, { label: "x", scopes: ["admin"] })).status).toBe(400);
  }, 60_000);
});
