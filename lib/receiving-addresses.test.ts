import { generateKeyPairSync } from "node:crypto";
import { getBase58Decoder } from "@solana/kit";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { EnvError, loadEnv } from "./env";
import { addressCollisions } from "./receiving-addresses";

/** A Solana keypair as operators hold it: the keygen JSON array of 64 bytes, and its address. */
function solanaKeypair(): { secretJson: string; secretBase58: string; address: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32);
  const pub = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const bytes = new Uint8Array([...seed, ...pub]);
  const base58 = getBase58Decoder();
  return {
    secretJson: JSON.stringify([...bytes]),
    secretBase58: base58.decode(bytes),
    address: base58.decode(pub),
  };
}

describe("receiving addresses are pairwise distinct", () => {
  const payer = solanaKeypair();
  const payout = solanaKeypair();
  const other = solanaKeypair();
  const settlerKey = generatePrivateKey();
  const settler = privateKeyToAccount(settlerKey).address;

  it("finds nothing in a configuration where every role has its own address", () => {
    expect(
      addressCollisions({
        X402_PAY_TO: other.address,
        SOLANA_DEPOSIT_ADDRESS: solanaKeypair().address,
        X402_FEE_PAYER_SECRET: payer.secretJson,
        HOST_PAYOUT_SECRET: payout.secretBase58,
        X402_BASE_PAY_TO: "0x1111111111111111111111111111111111111111",
        BASE_DEPOSIT_ADDRESS: "0x2222222222222222222222222222222222222222",
        X402_BASE_SETTLER_KEY: settlerKey,
      }),
    ).toEqual([]);
  });

  // [setting, other setting, their values]: each pair names one address twice.
  const collisions: [string, string, string, string][] = [
    ["X402_PAY_TO", "SOLANA_DEPOSIT_ADDRESS", other.address, other.address],
    ["X402_PAY_TO", "X402_FEE_PAYER_SECRET", payer.address, payer.secretBase58],
    ["SOLANA_DEPOSIT_ADDRESS", "HOST_PAYOUT_SECRET", payout.address, payout.secretJson],
    ["X402_FEE_PAYER_SECRET", "HOST_PAYOUT_SECRET", payer.secretJson, payer.secretBase58],
    ["X402_BASE_PAY_TO", "BASE_DEPOSIT_ADDRESS", settler, settler.toLowerCase()],
    ["BASE_DEPOSIT_ADDRESS", "X402_BASE_SETTLER_KEY", settler, settlerKey],
  ];
  it.each(collisions)("%s and %s on one address is refused", (first, second, firstValue, secondValue) => {
    const problems = addressCollisions({ [first]: firstValue, [second]: secondValue });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`${first} and ${second} are the same`);
  });

  it("loadEnv refuses a colliding configuration with one line naming both settings", () => {
    let error: unknown;
    try {
      loadEnv({ X402_PAY_TO: other.address, SOLANA_DEPOSIT_ADDRESS: other.address });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EnvError);
    const message = (error as Error).message;
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toMatch(/X402_PAY_TO and SOLANA_DEPOSIT_ADDRESS are the same Solana address/);
  });
});
