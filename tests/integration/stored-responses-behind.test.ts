import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../lib/db/client";
import { storedResponses } from "../../lib/db/schema";
import { gatewayMetrics } from "../../lib/metrics/gateway-metrics";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/**
 * A stored response is written just after its answer is sent, not before. Attacked as a client
 * that names the response the instant the answer's last byte arrives (whole and streamed, a cache
 * hit too, in a loop and concurrently), with the database made slow so the follow-up truly lands
 * while the write is pending; with the database refusing the write (the follow-up is a 404 in
 * OpenAI's shape, the failure counted, the answer still billed); and across two replicas on one
 * Postgres database, where the second must look again rather than answer 404 at once.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});
afterEach(async () => {
  await slowStores(gateway.app.database.db, undefined);
});

/**
 * Makes every stored-response INSERT sleep `seconds` first (and refuse a conversation containing
 * "refuse-me"); undefined takes the trigger away.
 */
async function slowStores(db: Database, seconds: number | undefined): Promise<void> {
  await db.execute(sql`DROP TRIGGER IF EXISTS slow_store ON stored_responses`);
  if (seconds === undefined) return;
  await db.execute(
    sql.raw(`CREATE OR REPLACE FUNCTION slow_store() RETURNS trigger AS $$
      BEGIN
        PERFORM pg_sleep(${seconds});
        IF NEW.input_items::text LIKE '%refuse-me%' THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`),
  );
  await db.execute(
    sql`CREATE TRIGGER slow_store BEFORE INSERT ON stored_responses FOR EACH ROW EXECUTE FUNCTION slow_store()`,
  );
}

interface Turn {
  status: number;
  id: string;
  /** The answer's text (its output messages). */
  answer: string;
  text: string;
  cache: string | null;
  /** What the gateway billed for it (X-Pod-Cost-Microunits). */
  cost: bigint;
}

interface ResponseBody {
  id?: string;
  output?: Array<{ content?: Array<{ text?: string }> }>;
}

const answerOf = (response: ResponseBody) =>
  (response.output ?? []).flatMap((item) => (item.content ?? []).map((part) => part.text ?? "")).join("");

/** One Responses request; resolves the moment the answer's last byte has arrived. */
async function turn(
  baseUrl: string,
  token: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Turn> {
  const response = await fetch(`${baseUrl}/proxy/${token}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "gpt-4o-mini", ...body }),
  });
  const text = await response.text();
  let answered: ResponseBody = {};
  if (response.status === 200 && body.stream === true) {
    const completed = text.split("\n").find((line) => line.startsWith('data: {"type":"response.completed"'));
    answered =
      (JSON.parse(completed?.slice("data: ".length) ?? "{}") as { response?: ResponseBody }).response ?? {};
  } else if (response.status === 200) answered = JSON.parse(text) as ResponseBody;
  return {
    status: response.status,
    id: answered.id ?? "",
    answer: answerOf(answered),
    text,
    cache: response.headers.get("x-pod-cache"),
    cost: BigInt(response.headers.get("x-pod-cost-microunits") ?? "-1"),
  };
}

const waits = (where: "here" | "replica", outcome: "found" | "not_found") =>
  gatewayMetrics.storedResponseWaits.value({ where, outcome });

/** The conversation stored with response `id`, as the texts of its items. */
async function storedConversation(db: Database, id: string): Promise<string[]> {
  const [row] = await db.select().from(storedResponses).where(eq(storedResponses.id, id));
  return (row?.inputItems ?? []).map((item) => {
    const content = (item as { content?: unknown }).content;
    return typeof content === "string" ? content : answerOf({ output: [item as { content?: [] }] });
  });
}

describe("a follow-up sent the instant the answer arrives", () => {
  it("waits for the pending write, whole and streamed; a GET finds it, a DELETE forgets it", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    await slowStores(gateway.app.database.db, 0.15);
    for (const stream of [false, true]) {
      const before = waits("here", "found");
      const first = await turn(gateway.baseUrl, token, { input: `first ${stream}`, stream });
      expect(first.status).toBe(200);
      const [second, got] = await Promise.all([
        turn(gateway.baseUrl, token, { input: "second", previous_response_id: first.id, stream }),
        fetch(`${gateway.baseUrl}/proxy/${token}/v1/responses/${first.id}`),
      ]);
      expect(second.status, second.text).toBe(200);
      expect(got.status).toBe(200);
      expect(((await got.json()) as { id: string }).id).toBe(first.id);
      // Both arrived while the write was pending (the database sleeps 150 ms in it) and waited for it.
      expect(waits("here", "found") - before).toBe(2);
      const sent = gateway.openai.requests.at(-1)?.body.messages as Array<{ content: string }>;
      expect(sent.map((message) => message.content)).toEqual([`first ${stream}`, first.answer, "second"]);
    }
    // A DELETE sent at once forgets it (it waits for the write, rather than finding nothing and
    // leaving the row to land after it).
    const doomed = await turn(gateway.baseUrl, token, { input: "forget me" });
    const removed = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/responses/${doomed.id}`, {
      method: "DELETE",
    });
    expect(removed.status).toBe(200);
    await gateway.app.pendingResponses.idle();
    expect((await fetch(`${gateway.baseUrl}/proxy/${token}/v1/responses/${doomed.id}`)).status).toBe(404);
    expect(await storedConversation(gateway.app.database.db, doomed.id)).toEqual([]);
  });

  it("continues a cache hit's response named at once", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    const cached = { input: "cache me", temperature: 0, max_output_tokens: 20 };
    const headers = { "X-Pod-Cache": "on" };
    const miss = await turn(gateway.baseUrl, token, cached, headers);
    expect(miss.cache).toBe("miss");
    await slowStores(gateway.app.database.db, 0.1);
    for (const stream of [false, true]) {
      const hit = await turn(gateway.baseUrl, token, { ...cached, stream }, headers);
      expect(hit.cache).toBe("hit");
      const next = await turn(gateway.baseUrl, token, {
        input: "after the hit",
        previous_response_id: hit.id,
      });
      expect(next.status, next.text).toBe(200);
      const sent = gateway.openai.requests.at(-1)?.body.messages as Array<{ content: string }>;
      expect(sent.map((message) => message.content)).toEqual(["cache me", miss.answer, "after the hit"]);
    }
  });

  it("always continues, turn after turn, in eight conversations at once", async () => {
    const token = await gateway.createFundedToken(50_000_000n);
    const turns = 6;
    const conversation = async (n: number): Promise<{ last: string; texts: string[] }> => {
      let previous: string | undefined;
      const texts: string[] = [];
      for (let index = 0; index < turns; index += 1) {
        const answer = await turn(gateway.baseUrl, token, {
          input: `c${n} t${index}`,
          stream: (n + index) % 2 === 0,
          ...(previous ? { previous_response_id: previous } : {}),
        });
        expect(answer.status, answer.text).toBe(200);
        previous = answer.id;
        texts.push(`c${n} t${index}`, answer.answer);
      }
      return { last: previous ?? "", texts };
    };
    const lasts = await Promise.all(Array.from({ length: 8 }, (_, n) => conversation(n)));
    await gateway.app.pendingResponses.idle();
    for (const { last, texts } of lasts) {
      // Every turn's input and answer, in order: no turn found its previous response missing.
      expect(await storedConversation(gateway.app.database.db, last)).toEqual(texts.slice(0, -1));
    }
  });
});

describe("a write the database refuses", () => {
  it("answers and bills the turn; the follow-up is a 404 in OpenAI's shape, nothing billed; the failure is counted", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    await slowStores(gateway.app.database.db, 0.1);
    const failures = gatewayMetrics.storedResponseFailures.value();
    const start = await gateway.balanceOf(token);
    const calls = gateway.openai.requests.length;
    const notFound = waits("here", "not_found");
    const first = await turn(gateway.baseUrl, token, { input: "refuse-me please" });
    expect(first.status).toBe(200);
    const second = await turn(gateway.baseUrl, token, { input: "next", previous_response_id: first.id });
    expect(second.status).toBe(404);
    expect(JSON.parse(second.text)).toMatchObject({
      error: {
        message: `previous response not found: ${first.id}`,
        type: "not_found",
        code: "not_found",
        param: "previous_response_id",
      },
    });
    expect(waits("here", "not_found") - notFound).toBe(1);
    expect(gatewayMetrics.storedResponseFailures.value() - failures).toBe(1);
    // The follow-up never reached the upstream; the answered turn was billed once, the 404 not at all.
    expect(gateway.openai.requests.length).toBe(calls + 1);
    expect(first.cost).toBeGreaterThan(0n);
    expect((await gateway.balanceOf(token)).balance).toBe(start.balance - first.cost);
    expect((await fetch(`${gateway.baseUrl}/proxy/${token}/v1/responses/${first.id}`)).status).toBe(404);
  });
});

const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl)
  console.warn("two-replica stored-response tests skipped: set TEST_DATABASE_URL (replicas share Postgres)");

describe.skipIf(!postgresUrl)("two replicas on one Postgres database", () => {
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    a = await startTestGateway();
    b = await startTestGateway({ env: { DATABASE_URL: a.app.env.DATABASE_URL ?? "" } });
  });
  afterAll(async () => {
    await slowStores(a.app.database.db, undefined);
    await b.close();
    await a.close();
  });

  it("a follow-up to the other replica right after the answer continues; a GET there finds it", async () => {
    const token = await a.createFundedToken(5_000_000n);
    await slowStores(a.app.database.db, 0.25);
    for (const stream of [false, true]) {
      const before = waits("replica", "found");
      const first = await turn(a.baseUrl, token, { input: `on a ${stream}`, stream });
      expect(first.status).toBe(200);
      const [second, got] = await Promise.all([
        turn(b.baseUrl, token, { input: "on b", previous_response_id: first.id, stream }),
        fetch(`${b.baseUrl}/proxy/${token}/v1/responses/${first.id}`),
      ]);
      expect(second.status, second.text).toBe(200);
      expect(got.status).toBe(200);
      // Replica b found nothing at first (a's write sleeps 250 ms) and looked again.
      expect(waits("replica", "found") - before).toBe(2);
      const sent = b.openai.requests.at(-1)?.body.messages as Array<{ content: string }>;
      expect(sent.map((message) => message.content)).toEqual([`on a ${stream}`, first.answer, "on b"]);
    }
  });

  it("looks again for at most about 500 ms, and only for an id made in the last minute", async () => {
    const token = await b.createFundedToken(1_000_000n);
    const hex = (seconds: number) => Math.floor(seconds).toString(16).padStart(8, "0");
    const recent = `resp_${hex(Date.now() / 1000)}${"0".repeat(40)}`;
    const old = `resp_${hex(Date.now() / 1000 - 3600)}${"0".repeat(40)}`;
    const gaveUp = waits("replica", "not_found");
    let started = performance.now();
    const missing = await turn(b.baseUrl, token, { input: "x", previous_response_id: recent });
    const waited = performance.now() - started;
    expect(missing.status).toBe(404);
    expect(waits("replica", "not_found") - gaveUp).toBe(1);
    expect(waited).toBeGreaterThanOrEqual(450);
    expect(waited).toBeLessThan(5_000);
    started = performance.now();
    expect((await turn(b.baseUrl, token, { input: "x", previous_response_id: old })).status).toBe(404);
    expect(waits("replica", "not_found") - gaveUp).toBe(1);
    expect(performance.now() - started).toBeLessThan(waited);
  });
});
