import { describe, expect, it } from "vitest";
import { fromJournalPayload, toJournalPayload } from "./journal-payload";
import type { LeaseSettlement } from "./settle-batch";
import { bigintAsText } from "./settlement-journal";

const settlement: LeaseSettlement = {
  requestId: "req_payload",
  accountId: 7n,
  leaseId: "lease-payload",
  cost: 1_234n,
  charged: 1_000n,
  treasuryAccountId: 1n,
  lossAccountId: 2n,
  providerAccountId: 9n,
  providerSharePercent: 80n,
  metadata: {
    request_id: "req_payload",
    model: "gpt-4o-mini",
    route: "marketplace",
    provider: "host-1",
    api_key_id: "0b6f3c1e-5d2a-4f7b-9e8c-1a2b3c4d5e6f",
  },
  usageRecord: {
    model: "gpt-4o-mini",
    route: "marketplace",
    providerId: "host-1",
    usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 1, cacheWriteTokens: 0 },
    outcome: "completed",
    apiKeyId: "0b6f3c1e-5d2a-4f7b-9e8c-1a2b3c4d5e6f",
  },
};

/** As the row comes back from the database: through JSON text. */
const stored = (payload: unknown): unknown => JSON.parse(JSON.stringify(payload));

describe("journal payload", () => {
  it("round-trips a settlement without storing its request id or metadata", () => {
    const payload = stored(toJournalPayload(settlement));
    expect(JSON.stringify(payload)).not.toContain("req_payload");
    expect(JSON.stringify(payload).length).toBeLessThan(
      JSON.stringify(settlement, bigintAsText).length * 0.8,
    );
    expect(fromJournalPayload("req_payload", payload)).toEqual(settlement);
  });

  it("round-trips a centralized settlement with no provider account or API key", () => {
    const { providerAccountId: _provider, ...centralized } = settlement;
    const { apiKeyId: _key, ...usageRecord } = settlement.usageRecord;
    const plain: LeaseSettlement = {
      ...centralized,
      upstreamExcess: { accountId: 11n, amount: 4_321n },
      usageRecord: { ...usageRecord, route: "centralized", providerId: "openai" },
      metadata: { request_id: "req_payload", model: "gpt-4o-mini", route: "centralized", provider: "openai" },
    };
    expect(fromJournalPayload("req_payload", stored(toJournalPayload(plain)))).toEqual(plain);
  });

  it("reads a row written before the payload was compact (the whole settlement, bigints as 123n)", () => {
    const legacy = JSON.parse(JSON.stringify(settlement, bigintAsText)) as unknown;
    expect(fromJournalPayload("req_payload", legacy)).toEqual(settlement);
  });

  it("refuses a row that is not a settlement", () => {
    const payload = { ...toJournalPayload(settlement), cost: "12.5" };
    expect(() => fromJournalPayload("req_bad", payload)).toThrow(/req_bad/);
    expect(() =>
      fromJournalPayload("req_bad", { ...payload, cost: "1", usage: { inputTokens: -1 } }),
    ).toThrow();
    expect(() => fromJournalPayload("req_bad", null)).toThrow();
  });
});
