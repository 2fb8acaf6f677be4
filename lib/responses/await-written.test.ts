import { describe, expect, it } from "vitest";
import { newResponseId } from "../dialects/translate/responses/new-item-id";
import { loadEnv } from "../env";
import { gatewayMetrics } from "../metrics/gateway-metrics";
import { awaitWritten } from "./await-written";
import { PendingResponseStores } from "./pending-stores";

const onPostgres = {
  env: loadEnv({ DATABASE_URL: "postgres://postgres@127.0.0.1:5432/none" }),
  pendingResponses: new PendingResponseStores(),
};

describe("looking again for a response another replica may be writing", () => {
  it("made-up recent ids cannot hold more than 32 requests at once: the rest are a 404 at once", async () => {
    const crowdedBefore = gatewayMetrics.storedResponseWaits.value({ where: "replica", outcome: "crowded" });
    let looks = 0;
    const attempt = async (): Promise<string | undefined> => {
      looks += 1;
      return undefined;
    };
    const ids = Array.from({ length: 50 }, () => newResponseId(Math.floor(Date.now() / 1000)));
    const started = Date.now();
    const found = await Promise.all(ids.map((id) => awaitWritten(onPostgres, id, attempt)));
    expect(found.every((one) => one === undefined)).toBe(true);
    // 32 looked seven times (one look, then six more over 500 ms); the other 18 looked once.
    expect(looks).toBe(32 * 7 + 18);
    expect(
      gatewayMetrics.storedResponseWaits.value({ where: "replica", outcome: "crowded" }) - crowdedBefore,
    ).toBe(18);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    // Once they are done, the next one looks again.
    let later = 0;
    await awaitWritten(onPostgres, ids[0] ?? "", async () => {
      later += 1;
      return undefined;
    });
    expect(later).toBe(7);
  });

  it("an old id or an id without a time is not looked for again", async () => {
    let looks = 0;
    const attempt = async (): Promise<undefined> => {
      looks += 1;
      return undefined;
    };
    await awaitWritten(onPostgres, newResponseId(Math.floor(Date.now() / 1000) - 3_600), attempt);
    await awaitWritten(onPostgres, "resp_made_up", attempt);
    expect(looks).toBe(2);
  });
});
