import { createPublicKey, sign } from "node:crypto";
import {
  hostAttestationMessage,
  type ReceiptKeySet,
  type UsageReceipt,
} from "@pod-gateway/contracts/usage-receipt";
import { CompactSign } from "jose";
import { describe, expect, it } from "vitest";
import { ed25519PrivateKey, newSeed } from "../crypto/ed25519-seed";
import { publicReceiptKey, receiptKeySet, receiptSigner } from "./receipt-keys";
import { signReceipt } from "./sign-receipt";
import { attestationHolds, sha256Hex, verifyReceipt } from "./verify-receipt";

const requestBody = '{"model":"m","messages":[{"role":"user","content":"hi"}]}';
const responseBody = '{"choices":[{"message":{"content":"hello"}}]}';
const issuedAt = 1_790_000_000;

function hostAttest(seed: Buffer, jobId: string) {
  const fields = {
    jobId,
    requestSha256: sha256Hex(requestBody),
    responseSha256: sha256Hex(responseBody),
    outputTokens: 2,
  };
  const privateKey = ed25519PrivateKey(seed);
  const x = createPublicKey(privateKey).export({ format: "jwk" }).x ?? "";
  return {
    pubkey: Buffer.from(x, "base64url").toString("base64"),
    job_id: jobId,
    request_sha256: fields.requestSha256,
    response_sha256: fields.responseSha256,
    output_tokens: fields.outputTokens,
    signature: sign(null, Buffer.from(hostAttestationMessage(fields)), privateKey).toString("base64"),
  };
}

function receipt(overrides: Partial<UsageReceipt> = {}): UsageReceipt {
  return {
    v: 1,
    iss: "http://127.0.0.1:3000",
    request_id: "req_0123456789abcdef01234567",
    iat: issuedAt,
    payer: { kind: "account", account_id: "42" },
    model: "gpt-4o-mini",
    source: { route: "marketplace", provider_id: "3f1c1a8e-0000-4000-8000-000000000001" },
    usage: {
      input_tokens: 12,
      output_tokens: 2,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      counted_by: "gateway_tokenizer",
      bounded: false,
    },
    prices: {
      input_per_1m: "150000",
      output_per_1m: "600000",
      cache_read_per_1m: "0",
      cache_write_per_1m: "0",
    },
    charge: "3",
    host_share: "2",
    outcome: "completed",
    hashes: { request_sha256: sha256Hex(requestBody), response_sha256: sha256Hex(responseBody) },
    ...overrides,
  };
}

async function setup() {
  const seed = newSeed();
  const signer = await receiptSigner(seed, issuedAt - 3600);
  return { signer, privateKey: ed25519PrivateKey(seed), keySet: receiptKeySet(signer, []) };
}

/** The same JWS with its payload replaced and the original signature kept. */
function withPayload(jws: string, payload: unknown): string {
  const [header, , signature] = jws.split(".");
  return `${header}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${signature}`;
}

describe("verifyReceipt", () => {
  it("accepts a receipt under the published key and hands back its claims", async () => {
    const { signer, keySet } = await setup();
    const jws = await signReceipt(signer, receipt());
    const result = await verifyReceipt(jws, keySet, {
      requestId: "req_0123456789abcdef01234567",
      requestBody,
      responseBody,
    });
    expect(result).toMatchObject({ ok: true, receipt: { charge: "3" }, key: { kid: signer.kid } });
  });

  it("signs the bytes node:crypto's Ed25519 would (RFC 8032 signatures are deterministic)", async () => {
    const { signer, privateKey } = await setup();
    for (const overrides of [{}, { charge: "999999999999" }, { request_id: "req_ffffffff" }]) {
      const jws = await signReceipt(signer, receipt(overrides));
      const [header, payload, signature] = jws.split(".");
      const expected = sign(null, Buffer.from(`${header}.${payload}`), privateKey).toString("base64url");
      expect(signature).toBe(expected);
    }
  });

  it.each([
    ["charge", { charge: "1" }],
    ["host share", { host_share: "3" }],
    ["counts", { usage: { ...receipt().usage, output_tokens: 1 } }],
    ["model", { model: "gpt-4o" }],
    ["payer", { payer: { kind: "account", account_id: "43" } }],
    ["source", { source: { route: "centralized", provider_id: "openai" } }],
    ["response hash", { hashes: { ...receipt().hashes, response_sha256: sha256Hex("other") } }],
    ["time", { iat: issuedAt + 1 }],
  ] as const)("refuses a receipt whose %s was altered", async (_name, change) => {
    const { signer, keySet } = await setup();
    const jws = await signReceipt(signer, receipt());
    const result = await verifyReceipt(withPayload(jws, receipt(change as Partial<UsageReceipt>)), keySet);
    expect(result).toEqual({ ok: false, reason: expect.stringContaining("altered or forged") });
  });

  it("refuses a receipt signed by a key the gateway never published", async () => {
    const { keySet } = await setup();
    const forger = await receiptSigner(newSeed(), 0);
    const result = await verifyReceipt(await signReceipt(forger, receipt()), keySet);
    expect(result).toEqual({ ok: false, reason: expect.stringContaining("does not hold") });
  });

  it("refuses a forger who reuses the published kid with its own key", async () => {
    const { signer, keySet } = await setup();
    const forger = await receiptSigner(newSeed(), 0);
    const jws = await signReceipt({ ...forger, kid: signer.kid }, receipt());
    expect(await verifyReceipt(jws, keySet)).toEqual({
      ok: false,
      reason: expect.stringContaining("altered or forged"),
    });
  });

  it("keeps a rotated key's receipts good inside its window and refuses them after its end", async () => {
    const oldSeed = newSeed();
    const old = await receiptSigner(oldSeed, 0);
    const retiredAt = issuedAt + 600;
    const current = await receiptSigner(newSeed(), issuedAt + 300); // overlap: 300 s
    const keySet: ReceiptKeySet = receiptKeySet(current, [await publicReceiptKey(oldSeed, 0, retiredAt)]);
    const before = await verifyReceipt(await signReceipt(old, receipt()), keySet);
    expect(before.ok).toBe(true);
    const inOverlap = await verifyReceipt(await signReceipt(old, receipt({ iat: issuedAt + 500 })), keySet);
    expect(inOverlap.ok).toBe(true);
    const after = await verifyReceipt(await signReceipt(old, receipt({ iat: retiredAt + 1 })), keySet);
    expect(after).toEqual({ ok: false, reason: expect.stringContaining("was retired at") });
    const byNew = await verifyReceipt(await signReceipt(current, receipt({ iat: issuedAt + 400 })), keySet);
    expect(byNew.ok).toBe(true);
    const backdated = await verifyReceipt(await signReceipt(current, receipt({ iat: issuedAt })), keySet);
    expect(backdated).toEqual({ ok: false, reason: expect.stringContaining("signs from") });
  });

  it("refuses a receipt replayed as another request's", async () => {
    const { signer, keySet } = await setup();
    const jws = await signReceipt(signer, receipt());
    const result = await verifyReceipt(jws, keySet, { requestId: "req_ffffffffffffffffffffffff" });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining("replayed") });
  });

  it("refuses a receipt for other bytes than the response the caller holds", async () => {
    const { signer, keySet } = await setup();
    const jws = await signReceipt(signer, receipt());
    const result = await verifyReceipt(jws, keySet, { responseBody: `${responseBody} ` });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining("response_sha256") });
  });

  it("checks the host's co-signature, and refuses another host's", async () => {
    const { signer, keySet } = await setup();
    const hostSeed = newSeed();
    const host = hostAttest(hostSeed, "job-1");
    const good = await verifyReceipt(await signReceipt(signer, receipt({ host })), keySet, {
      hostPubkey: host.pubkey,
    });
    expect(good.ok).toBe(true);
    // Another host's signature under this host's name: the gateway signed the wrong thing.
    const other = hostAttest(newSeed(), "job-1");
    const swapped = await signReceipt(signer, receipt({ host: { ...host, signature: other.signature } }));
    expect(await verifyReceipt(swapped, keySet)).toEqual({
      ok: false,
      reason: expect.stringContaining("host attestation's signature"),
    });
    // Another host's whole attestation: valid in itself, but not the host the verifier expects.
    const otherHost = await signReceipt(signer, receipt({ host: other }));
    expect(await verifyReceipt(otherHost, keySet, { hostPubkey: host.pubkey })).toEqual({
      ok: false,
      reason: expect.stringContaining("not the expected host"),
    });
    // An attestation of another job does not stand for this one.
    const elsewhere = hostAttest(hostSeed, "job-2");
    const moved = await signReceipt(signer, receipt({ host: { ...elsewhere, job_id: "job-1" } }));
    expect((await verifyReceipt(moved, keySet)).ok).toBe(false);
  });

  it("holds a host's attestation only when its key and signature are whole and its own", () => {
    const host = hostAttest(newSeed(), "job-1");
    expect(attestationHolds(host)).toBe(true);
    const bytes = (text: string) => Buffer.from(text, "base64");
    const flipped = bytes(host.signature);
    flipped[10] = (flipped[10] ?? 0) ^ 1;
    const attacks = {
      "a flipped bit": { ...host, signature: flipped.toString("base64") },
      "a signature cut short": {
        ...host,
        signature: bytes(host.signature).subarray(0, 63).toString("base64"),
      },
      "a signature too long": {
        ...host,
        signature: Buffer.concat([bytes(host.signature), Buffer.alloc(1)]).toString("base64"),
      },
      "no signature": { ...host, signature: "" },
      "an all-zero signature": { ...host, signature: Buffer.alloc(64).toString("base64") },
      "a key cut short": { ...host, pubkey: bytes(host.pubkey).subarray(0, 31).toString("base64") },
      "the identity point as key": {
        ...host,
        pubkey: Buffer.from([1, ...Buffer.alloc(31)]).toString("base64"),
      },
      "text that is not base64": { ...host, pubkey: "%%%%", signature: "!!" },
      "other counts": { ...host, output_tokens: host.output_tokens + 1 },
    };
    for (const [name, attestation] of Object.entries(attacks))
      expect({ name, holds: attestationHolds(attestation) }).toEqual({ name, holds: false });
  });

  it("refuses other signed objects under a receipt key, and unsigned ones", async () => {
    const { signer, privateKey, keySet } = await setup();
    const jwt = await new CompactSign(new TextEncoder().encode(JSON.stringify(receipt())))
      .setProtectedHeader({ alg: "EdDSA", kid: signer.kid, typ: "JWT" })
      .sign(privateKey);
    expect(await verifyReceipt(jwt, keySet)).toEqual({ ok: false, reason: expect.stringContaining("typ") });
    const header = Buffer.from(JSON.stringify({ alg: "none", kid: signer.kid, typ: "pod-receipt+jws" }));
    const unsigned = `${header.toString("base64url")}.${Buffer.from(JSON.stringify(receipt())).toString("base64url")}.`;
    expect(await verifyReceipt(unsigned, keySet)).toEqual({
      ok: false,
      reason: expect.stringContaining("alg"),
    });
    expect(await verifyReceipt("not a receipt", keySet)).toEqual({
      ok: false,
      reason: expect.stringContaining("compact JWS"),
    });
  });

  it("refuses a well-signed payload that is not a receipt", async () => {
    const { signer, keySet } = await setup();
    const bad = await signReceipt(signer, { ...receipt(), charge: "-1" } as UsageReceipt);
    expect(await verifyReceipt(bad, keySet)).toEqual({
      ok: false,
      reason: expect.stringContaining("not a receipt: charge"),
    });
  });
});
