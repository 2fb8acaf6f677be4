import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors/gateway-error";
import { encodeJsonHeader } from "./header-codec";
import { readPaymentProof } from "./payment-header";

const quoteId = "24c7f4e2-5b1e-4c63-9f0e-0a4cbe1c2f6d";
const wallet = "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS";
const devnet = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
// The registry's families, as the gateway registers them (lib/x402/rails/registry.ts).
const registered = [
  { family: "solana", label: "Solana" },
  { family: "eip155", label: "Base" },
];

function read(value: unknown, name = "payment-signature") {
  return readPaymentProof(
    new Headers({ [name]: typeof value === "string" ? value : encodeJsonHeader(value) }),
    registered,
  );
}

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error.message;
    throw error;
  }
  throw new Error("expected a GatewayError");
}

describe("readPaymentProof", () => {
  it("is undefined without a payment header", () => {
    expect(readPaymentProof(new Headers(), registered)).toBeUndefined();
  });

  it("reads the self-broadcast dialect, from PAYMENT-SIGNATURE or X-PAYMENT, base64 or base64url", () => {
    const payload = {
      quote_id: quoteId,
      network: devnet,
      asset: "usdc",
      payer_wallet: wallet,
      signature: "5sig",
    };
    const expected = {
      type: "native",
      quoteId,
      network: devnet,
      asset: "USDC",
      payerWallet: wallet,
      signature: "5sig",
      proof: undefined,
    };
    expect(read(payload)).toEqual(expected);
    expect(read(payload, "x-payment")).toEqual(expected);
    const base64url = Buffer.from(JSON.stringify(payload)).toString("base64url");
    expect(read(base64url)).toEqual(expected);
  });

  it("reads the balance scheme, with the proof top-level or under payload", () => {
    expect(read({ quote_id: quoteId, scheme: "balance", payer_wallet: wallet, proof: "p" })).toMatchObject({
      type: "balance",
      payerWallet: wallet,
      proof: "p",
    });
    expect(read({ quote_id: quoteId, scheme: "balance", payload: { proof: "q" } })).toMatchObject({
      type: "balance",
      payerWallet: undefined,
      proof: "q",
    });
  });

  it("reads the standard x402 v2 dialect and finds the quote id in accepted.extra", () => {
    const payload = {
      x402Version: 2,
      accepted: {
        scheme: "exact",
        network: devnet,
        asset: "mint",
        extra: { quote_id: quoteId, feePayer: wallet },
      },
      payload: { transaction: "AQID" },
    };
    expect(read(payload)).toEqual({
      type: "standard",
      quoteId,
      network: devnet,
      asset: "mint",
      payload: { transaction: "AQID" },
      raw: payload,
    });
  });

  it("refuses malformed headers with the reference service's wording", () => {
    expect(messageOf(() => read("not base64!"))).toBe("bad request: invalid payment header JSON");
    expect(messageOf(() => read(Buffer.from("[1]").toString("base64")))).toBe(
      "bad request: invalid payment header JSON",
    );
    expect(messageOf(() => read({ quote_id: quoteId, payer_wallet: wallet }))).toBe(
      "bad request: PAYMENT-SIGNATURE is missing the Solana transaction signature",
    );
    expect(
      messageOf(() =>
        read({
          quote_id: quoteId,
          network: "cosmos:cosmoshub-4",
          asset: "USDC",
          payer_wallet: wallet,
          signature: "s",
        }),
      ),
    ).toBe("bad request: only Solana and Base x402 payments are supported");
    expect(
      messageOf(() =>
        read({
          x402Version: 1,
          accepted: { scheme: "exact", network: devnet },
          payload: { transaction: "x" },
        }),
      ),
    ).toContain("x402Version 2");
  });
});
