import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LeaseSettlement } from "./settle-batch";
import { inferenceMetadata } from "./settle-inference";
import { bigintAsText, leftJournals, SettlementJournal } from "./settlement-journal";

function settlement(requestId: string, charged: bigint, outputTokens = 4): LeaseSettlement {
  const usageRecord = {
    model: "gpt-4o-mini",
    route: "marketplace",
    providerId: "host-1",
    usage: { inputTokens: 3, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: "completed",
    apiKeyId: "0b6f3c1e-5d2a-4f7b-9e8c-1a2b3c4d5e6f",
  };
  return {
    requestId,
    accountId: 7n,
    leaseId: "lease-1",
    cost: charged + 5n,
    charged,
    treasuryAccountId: 1n,
    lossAccountId: 2n,
    providerAccountId: 9n,
    providerSharePercent: 80n,
    metadata: inferenceMetadata(requestId, usageRecord),
    usageRecord,
  };
}

const claim = { ownInstanceId: "reader", databaseId: "db1", unnamed: false };
let directory = "";

afterEach(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
});

/** A journal another instance left: what `lines` wrote, then that instance died (never closed). */
async function leftBy(write: (journal: SettlementJournal, file: string) => Promise<void> | void) {
  directory = mkdtempSync(path.join(tmpdir(), "pod-journal-"));
  const journal = new SettlementJournal(directory, "dead", "db1");
  await write(journal, path.join(directory, "dead.db-db1.journal"));
  const [left] = leftJournals(directory, claim);
  return left?.settlements ?? [];
}

describe("the file settlement journal", () => {
  it("reads back every settlement it wrote, bigints and all, at the edge of their range", async () => {
    const huge = settlement("req_huge", 2n ** 63n - 1n);
    const read = await leftBy(async (journal) => {
      await journal.append(settlement("req_a", 1_000n));
      await journal.append(huge);
    });
    expect(read).toEqual([settlement("req_a", 1_000n), huge]);
  });

  it("reads lines written before the compact form (the whole settlement, bigints as 123n)", async () => {
    const read = await leftBy(async (journal, file) => {
      await journal.append(settlement("req_new", 10n));
      appendFileSync(file, `${JSON.stringify({ settle: settlement("req_old", 20n) }, bigintAsText)}\n`);
    });
    expect(read).toEqual([settlement("req_new", 10n), settlement("req_old", 20n)]);
  });

  it("bills a stream's last running count as interrupted, and its final settlement when it has one", async () => {
    const read = await leftBy(async (journal) => {
      journal.progress(settlement("req_stream", 3n, 10));
      journal.progress(settlement("req_stream", 6n, 20));
      journal.progress(settlement("req_done", 3n, 10));
      await journal.append(settlement("req_done", 9n, 30));
    });
    const interrupted = settlement("req_stream", 6n, 20);
    expect(read).toEqual([
      settlement("req_done", 9n, 30),
      { ...interrupted, usageRecord: { ...interrupted.usageRecord, outcome: "interrupted" } },
    ]);
  });

  it("skips what a crash or a stranger left, and bills the rest", async () => {
    const read = await leftBy(async (journal, file) => {
      await journal.append(settlement("req_kept", 10n));
      const whole = readFileSync(file, "utf8");
      appendFileSync(
        file,
        [
          "12", // a cut line that still parses
          "null",
          '{"settle":{"requestId":"req_bad","cost":"12.5"}}', // not a settlement
          '{"settle":{"cost":"1"}}', // no request id
          '{"settle":null}',
          '{"other":1}',
          '{"written":1}',
          whole.slice(0, 40), // cut mid-line
        ].join("\n"),
      );
    });
    expect(read).toEqual([settlement("req_kept", 10n)]);
  });
});
