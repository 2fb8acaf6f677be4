import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { receiptKeySetSchema } from "@pod-gateway/contracts/usage-receipt";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { newSeed } from "../../../lib/crypto/ed25519-seed";
import { loadEnv } from "../../../lib/env";
import { publicReceiptKey } from "../../../lib/receipts/receipt-keys";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";

/** The published key set: what a verifier fetches, with the rotated keys' windows. */

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe("GET /v1/receipts/keys", () => {
  it("publishes a development key when none is configured, the same one after a restart", async () => {
    // A data directory on disk: the key is kept there (memory:// keeps it in the process only).
    const dataDir = mkdtempSync(path.join(tmpdir(), "pod-receipt-key-"));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    gateway = await startTestGateway({ env: { POD_DATA_DIR: dataDir } });
    const response = await fetch(`${gateway.baseUrl}/v1/receipts/keys`);
    expect(response.status).toBe(200);
    const first = receiptKeySetSchema.parse(await response.json());
    expect(first.keys).toHaveLength(1);
    expect(first.keys[0]?.exp).toBeUndefined();
    expect(existsSync(path.join(dataDir, "receipt-signing-key"))).toBe(true);
    // Closed first: on PGlite the directory also holds the database, which one process opens at a time.
    await gateway.close();
    gateway = undefined;
    const again = await startTestGateway({ env: { POD_DATA_DIR: dataDir } });
    try {
      const second = receiptKeySetSchema.parse(
        await (await fetch(`${again.baseUrl}/v1/receipts/keys`)).json(),
      );
      expect(second.keys[0]?.kid).toBe(first.keys[0]?.kid);
    } finally {
      await again.close();
    }
  });

  it("publishes the configured key from its start and the retired keys with their windows", async () => {
    const retired = await publicReceiptKey(newSeed(), 1_700_000_000, 1_800_000_000);
    gateway = await startTestGateway({
      env: {
        RECEIPT_SIGNING_KEY: newSeed().toString("base64url"),
        RECEIPT_SIGNING_KEY_SINCE: "2027-01-15T00:00:00Z",
        RECEIPT_KEY_HISTORY: JSON.stringify([retired]),
      },
    });
    const set = receiptKeySetSchema.parse(await (await fetch(`${gateway.baseUrl}/v1/receipts/keys`)).json());
    expect(set.keys.map((key) => [key.nbf, key.exp])).toEqual([
      [Date.parse("2027-01-15T00:00:00Z") / 1000, undefined],
      [1_700_000_000, 1_800_000_000],
    ]);
  });

  it("answers 404 with receipts off", async () => {
    gateway = await startTestGateway({ env: { RECEIPTS: "off" } });
    const response = await fetch(`${gateway.baseUrl}/v1/receipts/keys`);
    expect(response.status).toBe(404);
    expect(gateway.app.receipts).toBeUndefined();
  });

  it("refuses a key that is not an Ed25519 seed, and a history entry without its end", () => {
    expect(() => loadEnv({ RECEIPT_SIGNING_KEY: "abc" })).toThrow(/RECEIPT_SIGNING_KEY/);
    const open = {
      kty: "OKP",
      crv: "Ed25519",
      x: "A".repeat(43),
      kid: "k",
      alg: "EdDSA",
      use: "sig",
      nbf: 0,
    };
    expect(() => loadEnv({ RECEIPT_KEY_HISTORY: JSON.stringify([open]) })).toThrow(/RECEIPT_KEY_HISTORY/);
    expect(() => loadEnv({ RECEIPT_KEY_HISTORY: "[" })).toThrow(/RECEIPT_KEY_HISTORY/);
  });
});
