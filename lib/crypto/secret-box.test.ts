import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, parseEncryptionKey, SecretBoxError } from "./secret-box";

const key = randomBytes(32);

describe("secret box (AES-256-GCM)", () => {
  it("round-trips and never stores the plaintext", () => {
    const sealed = encryptSecret(key, "sk-live-abc", "relay-key:1");
    expect(sealed.startsWith("v1:")).toBe(true);
    expect(sealed).not.toContain("sk-live-abc");
    expect(decryptSecret(key, sealed, "relay-key:1")).toBe("sk-live-abc");
  });

  it("uses a fresh IV each time", () => {
    expect(encryptSecret(key, "same", "a")).not.toBe(encryptSecret(key, "same", "a"));
  });

  it.each([
    ["another row's associated data", (sealed: string) => decryptSecret(key, sealed, "relay-key:2")],
    ["another key", (sealed: string) => decryptSecret(randomBytes(32), sealed, "relay-key:1")],
    [
      "a flipped ciphertext byte",
      (sealed: string) => {
        const bytes = Buffer.from(sealed.slice(3), "base64");
        bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
        return decryptSecret(key, `v1:${bytes.toString("base64")}`, "relay-key:1");
      },
    ],
    [
      "an unknown version",
      (sealed: string) => decryptSecret(key, sealed.replace("v1:", "v9:"), "relay-key:1"),
    ],
  ])("refuses %s", (_name, attempt) => {
    const sealed = encryptSecret(key, "sk-live-abc", "relay-key:1");
    expect(() => attempt(sealed)).toThrow(SecretBoxError);
  });

  it.each([
    ["64 hex characters", "ab".repeat(32), true],
    ["base64 of 32 bytes", Buffer.alloc(32, 7).toString("base64"), true],
    ["16 bytes", "ab".repeat(16), false],
    ["garbage", "not a key", false],
  ])("parses a key given as %s", (_name, value, valid) => {
    if (valid) expect(parseEncryptionKey(value)).toHaveLength(32);
    else expect(() => parseEncryptionKey(value)).toThrow(SecretBoxError);
  });
});
