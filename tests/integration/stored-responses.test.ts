import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedResponses } from "../../lib/db/schema";
import { sweepExpiredResponses } from "../../lib/responses/stored-responses";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/**
 * Stored responses with the official openai SDK: `store` (the default) keeps an answer for
 * its token, `previous_response_id` continues the conversation, retrieve and delete work,
 * and no other token can read, continue or delete it.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

const client = (token: string) =>
  new OpenAI({ baseURL: `${gateway.baseUrl}/proxy/${token}/v1`, apiKey: "pod", maxRetries: 0 });

/** The texts of the messages the last upstream request carried, in order. */
function upstreamTexts(fake: "openai" | "anthropic"): string[] {
  const messages = (gateway[fake].requests.at(-1)?.body.messages ?? []) as Array<{ content: unknown }>;
  return messages.map((message) =>
    typeof message.content === "string"
      ? message.content
      : (message.content as Array<{ text?: string }>).map((part) => part.text ?? "").join(""),
  );
}

describe("a conversation chained by previous_response_id", () => {
  it("continues with the stored turns first, and retrieves each response", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    const first = await client(token).responses.create({
      model: "gpt-4o-mini",
      instructions: "Be brief.",
      input: "My name is Ada. [fake:tokens=3]",
    });
    expect(first.output_text).toBe("Hello w1 w2");
    const second = await client(token).responses.create({
      model: "gpt-4o-mini",
      input: "What is my name?",
      previous_response_id: first.id,
    });
    expect(second.previous_response_id).toBe(first.id);
    // As OpenAI does, the earlier instructions are not carried over: only the conversation.
    expect(upstreamTexts("openai")).toEqual([
      "My name is Ada. [fake:tokens=3]",
      "Hello w1 w2",
      "What is my name?",
    ]);
    // Streamed turns chain too.
    const stream = await client(token).responses.create({
      model: "gpt-4o-mini",
      input: "And again?",
      previous_response_id: second.id,
      stream: true,
    });
    let thirdId = "";
    for await (const event of stream) if (event.type === "response.completed") thirdId = event.response.id;
    // A Claude model continues a conversation a GPT model began: the history is translated.
    const fourth = await client(token).responses.create(
      { model: "claude-haiku-4-5", input: "Last one", previous_response_id: thirdId },
      { headers: { "x-pod-providers": "anthropic" } },
    );
    expect(fourth.output_text).toBe("Hello w1 w2");
    expect(upstreamTexts("anthropic")).toEqual([
      "My name is Ada. [fake:tokens=3]",
      "Hello w1 w2",
      "What is my name?",
      "Hello w1 w2",
      "And again?",
      "Hello w1 w2",
      "Last one",
    ]);

    const retrieved = await client(token).responses.retrieve(second.id);
    expect(retrieved.id).toBe(second.id);
    expect(retrieved.output_text).toBe(second.output_text);
    const streamed = await client(token).responses.retrieve(thirdId);
    expect(streamed.output_text).toBe("Hello w1 w2");
  });

  it("the continued turn is held and billed for its whole history", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    const first = await client(token).responses.create({ model: "gpt-4o-mini", input: "x".repeat(4000) });
    const before = await gateway.balanceOf(token);
    await client(token).responses.create({
      model: "gpt-4o-mini",
      input: "short",
      previous_response_id: first.id,
    });
    const after = await gateway.balanceOf(token);
    // 4000 characters of history at the fake's 4 a token: 1000 tokens at 150,000 per 1M.
    expect(before.balance - after.balance).toBeGreaterThanOrEqual(150n);
  });
});

describe("scoped to the token that made it", () => {
  it("another token can neither read, continue nor delete it: a 404 like an unknown id", async () => {
    const owner = await gateway.createFundedToken(1_000_000n);
    const other = await gateway.createFundedToken(1_000_000n);
    const answer = await client(owner).responses.create({ model: "gpt-4o-mini", input: "secret" });
    await expect(client(other).responses.retrieve(answer.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const calls = gateway.openai.requests.length;
    await expect(
      client(other).responses.create({ model: "gpt-4o-mini", input: "x", previous_response_id: answer.id }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect(gateway.openai.requests.length).toBe(calls);
    expect((await gateway.balanceOf(other)).balance).toBe(1_000_000n);
    await expect(client(other).responses.delete(answer.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect((await client(owner).responses.retrieve(answer.id)).id).toBe(answer.id);
  });

  it("DELETE forgets it; store: false keeps nothing; an expired one is gone and swept", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const kept = await client(token).responses.create({ model: "gpt-4o-mini", input: "one" });
    await client(token).responses.delete(kept.id);
    await expect(client(token).responses.retrieve(kept.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const unstored = await client(token).responses.create({
      model: "gpt-4o-mini",
      input: "two",
      store: false,
    });
    expect("store" in unstored ? unstored.store : undefined).toBe(false);
    await expect(client(token).responses.retrieve(unstored.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const old = await client(token).responses.create({ model: "gpt-4o-mini", input: "three" });
    // Its row is written just after the answer: reading it through the API waits for that write.
    expect((await client(token).responses.retrieve(old.id)).id).toBe(old.id);
    const { db } = gateway.app.database;
    await db
      .update(storedResponses)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(storedResponses.id, old.id));
    await expect(client(token).responses.retrieve(old.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect(await sweepExpiredResponses(db)).toBeGreaterThanOrEqual(1);
    expect(await db.select().from(storedResponses).where(eq(storedResponses.id, old.id))).toEqual([]);
  });

  it("a malformed id is a 404, not a database error", async () => {
    const token = await gateway.createFundedToken(1_000n);
    for (const id of ["not-a-response", "resp_%27%3B--", `resp_${"a".repeat(300)}`]) {
      const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/responses/${id}`);
      expect(response.status, id).toBe(404);
    }
  });
});
