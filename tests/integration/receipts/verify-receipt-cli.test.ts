import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { UsageReceipt } from "@pod-gateway/contracts/usage-receipt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSeed } from "../../../lib/crypto/ed25519-seed";
import { publicReceiptKey, receiptKeySet, receiptSigner } from "../../../lib/receipts/receipt-keys";
import { signReceipt } from "../../../lib/receipts/sign-receipt";
import { sha256Hex } from "../../../lib/receipts/verify-receipt";

/**
 * The standalone verifier as a person runs it: `npx pod-gateway verify-receipt`, a separate
 * process with no database and no secret, reading the receipt from a file or stdin and the
 * published keys from a file or a URL.
 */

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const responseBody = '{"id":"chatcmpl-1","choices":[]}';

function runCli(args: string[], stdin?: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      "npx",
      ["--no-install", "pod-gateway", ...args],
      { cwd: repoRoot, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === "number" ? error.code : 1,
          stdout,
          stderr,
        });
      },
    );
    child.stdin?.end(stdin ?? "");
  });
}

function receipt(iat: number): UsageReceipt {
  return {
    v: 1,
    iss: "http://127.0.0.1",
    request_id: "req_00000000000000000000000a",
    iat,
    payer: { kind: "x402", wallet: "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS", network: "solana:x" },
    model: "claude-haiku",
    source: { route: "centralized", provider_id: "anthropic" },
    usage: {
      input_tokens: 10,
      output_tokens: 5,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      counted_by: "upstream_report",
      bounded: false,
    },
    prices: {
      input_per_1m: "1000000",
      output_per_1m: "5000000",
      cache_read_per_1m: "0",
      cache_write_per_1m: "0",
    },
    charge: "35",
    host_share: "0",
    outcome: "completed",
    hashes: { request_sha256: sha256Hex("{}"), response_sha256: sha256Hex(responseBody) },
  };
}

describe("npx pod-gateway verify-receipt", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "pod-receipt-cli-"));
  const now = Math.floor(Date.now() / 1000);
  const oldSeed = newSeed();
  let server: Server;
  let keysUrl = "";
  let valid = "";
  let byOldKey = "";
  let byOldKeyTooLate = "";

  beforeAll(async () => {
    const current = await receiptSigner(newSeed(), now - 100);
    const old = await receiptSigner(oldSeed, 0);
    const keySet = receiptKeySet(current, [await publicReceiptKey(oldSeed, 0, now - 50)]);
    writeFileSync(path.join(dir, "keys.json"), JSON.stringify(keySet));
    writeFileSync(path.join(dir, "response.json"), responseBody);
    valid = await signReceipt(current, receipt(now));
    byOldKey = await signReceipt(old, receipt(now - 200));
    byOldKeyTooLate = await signReceipt(old, receipt(now));
    server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(keySet));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    keysUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/receipts/keys`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("verifies a receipt from stdin against keys fetched from a URL, and the body it covers", async () => {
    const run = await runCli(
      ["verify-receipt", "-", "--keys", keysUrl, "--response-file", path.join(dir, "response.json")],
      valid,
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"charge": "35"');
  });

  it("reads a receipt file in the JSON the receipts API answers with, and keys from a file", async () => {
    writeFileSync(path.join(dir, "receipt.json"), JSON.stringify({ request_id: "x", receipt: byOldKey }));
    const run = await runCli([
      "verify-receipt",
      path.join(dir, "receipt.json"),
      "--keys",
      path.join(dir, "keys.json"),
    ]);
    expect(run.code).toBe(0);
  });

  it("fails with the reason for an altered receipt, a retired key past its end and a replay", async () => {
    const [header, payload, signature] = valid.split(".");
    const altered = JSON.parse(Buffer.from(payload ?? "", "base64url").toString()) as UsageReceipt;
    altered.charge = "1";
    const tampered = `${header}.${Buffer.from(JSON.stringify(altered)).toString("base64url")}.${signature}`;
    const keys = ["--keys", path.join(dir, "keys.json")];
    const runs = await Promise.all([
      runCli(["verify-receipt", "-", ...keys], tampered),
      runCli(["verify-receipt", "-", ...keys], byOldKeyTooLate),
      runCli(["verify-receipt", "-", ...keys, "--request-id", "req_00000000000000000000000b"], valid),
    ]);
    expect(runs.map((run) => run.code)).toEqual([1, 1, 1]);
    expect(runs[0]?.stderr).toContain("altered or forged");
    expect(runs[1]?.stderr).toContain("was retired at");
    expect(runs[2]?.stderr).toContain("replayed");
  });

  it("prints a key pair's lines and a retired key's history entry", async () => {
    const made = await runCli(["receipt-key", "new"]);
    const seed = /RECEIPT_SIGNING_KEY=([0-9a-f]{64})/.exec(made.stdout)?.[1];
    expect(seed).toBeDefined();
    const retired = await runCli(
      ["receipt-key", "retire", "--since", "2026-01-01T00:00:00Z", "--until", "2026-06-01T00:00:00Z"],
      seed,
    );
    expect(JSON.parse(retired.stdout)).toMatchObject({
      kty: "OKP",
      crv: "Ed25519",
      nbf: 1767225600,
      exp: 1780272000,
    });
  });
});
