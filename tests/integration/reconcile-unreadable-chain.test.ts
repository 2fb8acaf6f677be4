import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { reconcileOver } from "../helpers/reconcile";

/** A chain the gateway cannot read is reported, never taken as "nothing arrived", and never a 500. */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({
    env: {
      X402_PAY_TO: "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS",
      SOL_PRICE_USD: "150",
      // Nothing listens on port 1: every RPC call fails at once.
      SOLANA_RPC_URL: "http://127.0.0.1:1",
    },
  });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
});

describe("reconcile with an unreachable Solana RPC", () => {
  it("answers 200 with the pay-to wallet's history reported unreadable, so the books are not called reconciled", async () => {
    const report = await reconcileOver(gateway);
    expect(report.reconciled).toBe(false);
    expect(report.checked).toContain("solana");
    expect(report.differences).toEqual([
      expect.objectContaining({
        source: "solana",
        microunits: "0",
        detail: expect.stringContaining("history could not be read"),
      }),
    ]);
  });
});
