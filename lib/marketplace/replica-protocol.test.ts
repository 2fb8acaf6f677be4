import { directMessageSchema, parseDirectMessage } from "@pod-gateway/contracts/replica-protocol";
import { describe, expect, it } from "vitest";

/**
 * The job traffic between replicas is parsed by a hand check before the schema (the schema's walk
 * was a tenth of a millisecond on every job's path). The hand check must never accept what the
 * schema refuses nor answer differently: every message and a spread of wrong, edge and extra
 * values for each of its fields get the schema's answer from parseDirectMessage.
 */
const id = "0d4f5b1e-8f5a-4c36-9d1c-2b7c54f1a9e0";
const valid: Record<string, unknown>[] = [
  {
    type: "job",
    job: id,
    from: "gw_a_12ab34",
    providerId: id,
    connection: id,
    modelId: "gpt-4o-mini",
    body: '{"messages":[]}',
    window: 262_144,
  },
  { type: "start", job: id, status: 200, contentType: "application/json", data: "eyJhIjoxfQ==" },
  { type: "start", job: id, status: 503, contentType: "text/event-stream", data: "", end: {} },
  {
    type: "start",
    job: id,
    status: 200,
    contentType: "application/json",
    data: "",
    end: { tokens: { output: 3 } },
  },
  { type: "chunk", job: id, data: "AAAA" },
  { type: "end", job: id },
  { type: "end", job: id, tokens: { input: 12, output: 3 } },
  { type: "ack", job: id, bytes: 65_536 },
  { type: "cancel", job: id },
  { type: "fail", job: id, code: "disconnected", message: "the agent went away" },
  { type: "replaced", providerId: id, connection: id },
];

const mib = 1024 * 1024;
const oddValues: unknown[] = [
  undefined,
  null,
  true,
  "",
  " ",
  "a b",
  "a\nb",
  "tab\there",
  "é",
  "x".repeat(50),
  "x".repeat(51),
  "x".repeat(100),
  "x".repeat(101),
  "x".repeat(200),
  "x".repeat(201),
  0,
  -1,
  1.5,
  199,
  200,
  599,
  600,
  1023,
  1024,
  64 * mib,
  64 * mib + 1,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  [],
  {},
  { tokens: {} },
  { tokens: { output: -1 } },
  { tokens: null },
  { other: 1 },
];

const schemaAnswer = (value: unknown) => {
  const parsed = directMessageSchema.safeParse(JSON.parse(JSON.stringify(value)));
  return parsed.success ? parsed.data : undefined;
};

describe("parseDirectMessage", () => {
  it("gives the schema's answer for every message and every field set to a wrong, edge or missing value", () => {
    let compared = 0;
    for (const message of valid) {
      expect(parseDirectMessage(JSON.stringify(message))).toEqual(schemaAnswer(message));
      expect(parseDirectMessage(JSON.stringify(message))).toBeDefined();
      const keys = new Set([...Object.keys(message), "type", "job", "end", "tokens", "extra"]);
      for (const key of keys)
        for (const odd of oddValues) {
          const variant = { ...message, [key]: odd };
          expect(
            parseDirectMessage(JSON.stringify(variant)),
            `${message.type}.${key} = ${String(odd)}`,
          ).toEqual(schemaAnswer(variant));
          compared += 1;
        }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it("holds the size bounds of chunks and job bodies", () => {
    const chunk = valid[4] as Record<string, unknown>;
    for (const length of [6 * mib, 6 * mib + 1]) {
      const variant = { ...chunk, data: "A".repeat(length) };
      expect(parseDirectMessage(JSON.stringify(variant))).toEqual(schemaAnswer(variant));
    }
    expect(parseDirectMessage(JSON.stringify({ ...chunk, data: "A".repeat(6 * mib + 1) }))).toBeUndefined();
    const job = valid[0] as Record<string, unknown>;
    expect(parseDirectMessage(JSON.stringify({ ...job, body: "x".repeat(64 * mib + 1) }))).toBeUndefined();
  });

  it("refuses what is not a message", () => {
    for (const text of ["", "null", "[]", '"start"', "{", '[{"type":"cancel","job":"a"}]'])
      expect(parseDirectMessage(text)).toBeUndefined();
  });
});
