import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeAgentPubkey, newAuthNonce, verifyNonceSignature } from "./agent-signature";

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const jwk = publicKey.export({ format: "jwk" });
  return { pubkey: Buffer.from(jwk.x ?? "", "base64url").toString("base64"), privateKey };
}

describe("agent nonce signatures", () => {
  it("accepts the key's signature over the nonce and nothing else", () => {
    const agent = keyPair();
    const other = keyPair();
    const nonce = newAuthNonce();
    const pubkey = decodeAgentPubkey(agent.pubkey);
    if (!pubkey) throw new Error("bad key");
    const good = sign(null, nonce, agent.privateKey).toString("base64");
    expect(verifyNonceSignature(pubkey, nonce, good)).toBe(true);
    expect(verifyNonceSignature(pubkey, newAuthNonce(), good)).toBe(false);
    expect(verifyNonceSignature(pubkey, nonce, sign(null, nonce, other.privateKey).toString("base64"))).toBe(
      false,
    );
    expect(verifyNonceSignature(pubkey, nonce, "AAAA")).toBe(false);
  });

  it("refuses keys that are not 32 bytes of canonical base64", () => {
    expect(decodeAgentPubkey("AAAA")).toBeUndefined();
    expect(decodeAgentPubkey(keyPair().pubkey)).toBeDefined();
  });
});
