import { type Address, getAddress, type Hex, keccak256, toHex, verifyTypedData } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AuthorizationTerms, authorizationFault } from "./authorization-terms";
import type { Eip712Token } from "./constants";
import { type TransferAuthorization, transferWithAuthorizationTypes } from "./eip3009";

// Real signatures, checked by viem's own EIP-712 recovery: the same code path a node runs for an EOA.
const client = { verifyTypedData };
const payer = privateKeyToAccount(generatePrivateKey());
const payTo = getAddress("0x1111111111111111111111111111111111111111");
const token: Eip712Token = {
  address: getAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e"),
  name: "USDC",
  version: "2",
};
const chainId = 84532;
const NOW = 1_800_000_000n;

async function signed(
  fields: Partial<Omit<TransferAuthorization, "signature">> = {},
  signer = payer,
  domain: { chainId?: number; token?: Eip712Token } = {},
): Promise<TransferAuthorization> {
  const message = {
    from: payer.address,
    to: payTo,
    value: 1_000_000n,
    validAfter: 0n,
    validBefore: NOW + 300n,
    nonce: keccak256(toHex("a nonce")),
    ...fields,
  };
  const domainToken = domain.token ?? token;
  const signature = await signer.signTypedData({
    domain: {
      name: domainToken.name,
      version: domainToken.version,
      chainId: domain.chainId ?? chainId,
      verifyingContract: domainToken.address,
    },
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  return { ...message, signature };
}

const terms = (changes: Partial<AuthorizationTerms> = {}): AuthorizationTerms => ({
  chainId,
  token,
  payTo,
  minValue: 1_000_000n,
  ...changes,
});

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(Number(NOW) * 1000);
});
afterEach(() => {
  vi.useRealTimers();
});

describe("authorizationFault: the terms every submitted EIP-3009 authorization meets", () => {
  it("accepts an authorization exactly at every edge of its terms", async () => {
    const nonce = keccak256(toHex("committed"));
    const edge = await signed({ value: 1_000_000n, validAfter: NOW, validBefore: NOW + 10n, nonce });
    expect(
      await authorizationFault(
        client,
        edge,
        terms({ latestValidBefore: NOW + 10n, nonce: nonce.toUpperCase().replace("0X", "0x") as Hex }),
      ),
    ).toBeUndefined();
    // The recipient compares as an address, whatever its case.
    const lower = await signed({ to: payTo.toLowerCase() as Address });
    expect(await authorizationFault(client, lower, terms())).toBeUndefined();
  });

  it("refuses one unit, one second or one byte past each term", async () => {
    const cases: [Promise<TransferAuthorization>, Partial<AuthorizationTerms>, string][] = [
      [signed({ to: getAddress("0x2222222222222222222222222222222222222222") }), {}, "recipient"],
      [signed({ value: 999_999n }), {}, "below_minimum"],
      [signed({ validAfter: NOW + 1n }), {}, "not_yet_valid"],
      [signed({ validBefore: NOW + 9n }), {}, "expired"],
      [signed({ validBefore: NOW - 1n }), {}, "expired"],
      [signed({ validBefore: NOW + 301n }), { latestValidBefore: NOW + 300n }, "outlives_terms"],
      [signed(), { nonce: keccak256(toHex("another token's code")) }, "nonce"],
    ];
    for (const [authorization, changes, fault] of cases) {
      expect(await authorizationFault(client, await authorization, terms(changes))).toBe(fault);
    }
  });

  it("refuses a signature that is not the payer's over this token on this chain", async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    const otherToken = { ...token, address: getAddress("0x3333333333333333333333333333333333333333") };
    for (const authorization of [
      await signed({}, stranger),
      await signed({}, payer, { chainId: 8453 }),
      await signed({}, payer, { token: otherToken }),
      await signed({}, payer, { token: { ...token, version: "1" } }),
      // A field changed after signing: the signature covers the value.
      { ...(await signed()), value: 2_000_000n },
      { ...(await signed()), signature: `0x${"00".repeat(65)}` as Hex },
    ]) {
      expect(await authorizationFault(client, authorization, terms())).toBe("signature");
    }
  });
});
