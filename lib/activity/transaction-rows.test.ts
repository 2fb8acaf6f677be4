import { describe, expect, it } from "vitest";
import { transactionRow, transactionsCsv } from "./transaction-rows";

const item = {
  entryId: "9",
  transactionId: "tx1",
  kind: "card_credit",
  amount: 20_000_000n,
  createdAt: new Date("2026-11-27T12:00:00Z"),
  metadata: { reason: '=HYPERLINK("http://evil")' },
  inputTokens: null,
  outputTokens: null,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  apiKeyLabel: null,
  receipt: null,
};

describe("transaction rows", () => {
  it("names kinds in words and links card credits to their receipt", () => {
    const row = transactionRow(item, "/proxy/t/transactions");
    expect(row.label).toBe("Card payment");
    expect(row.receipt_url).toBe("/proxy/t/transactions/tx1/receipt");
    expect(transactionRow({ ...item, kind: "brand_new_kind" }, "").label).toBe("Brand new kind");
  });

  it("exports exact amounts and neutralises spreadsheet formulas", () => {
    const csv = transactionsCsv([
      transactionRow(item, ""),
      transactionRow(
        {
          ...item,
          kind: "inference",
          amount: -800n,
          metadata: { model: "gpt-4o-mini", route: "centralized" },
        },
        "",
      ),
    ]);
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toContain("created_at,label,kind,amount_microunits,amount_usd");
    expect(lines[1]).toContain("20000000,20.000000");
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(lines[2]).toContain("-800,-0.000800,gpt-4o-mini,centralized");
  });
});
