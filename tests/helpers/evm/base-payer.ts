import { ExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client, x402HTTPClient } from "@x402/fetch";
import type { Address, Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { transferWithAuthorizationTypes } from "../../../lib/chains/evm/eip3009";
import { encodePaymentSignature, type Quote } from "../x402-self-broadcast-client";

/** The Base `exact` entry of a quote (the one whose network is eip155). */
export function baseEntry(quote: Quote): Record<string, unknown> & {
  network: string;
  asset: Address;
  payTo: Address;
  amount: string;
  extra: { name: string; version: string; quote_id: string };
} {
  const entry = quote.accepts.find((candidate) => String(candidate.network).startsWith("eip155:"));
  if (!entry) throw new Error("the quote has no Base entry");
  return entry as never;
}

/** What the official client sends: @x402/fetch's x402Client with @x402/evm's exact scheme. */
export async function officialBaseHeader(account: PrivateKeyAccount, quoteResponse: Response) {
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(account));
  const http = new x402HTTPClient(client);
  const payload = await client.createPaymentPayload(
    http.getPaymentRequiredResponse((name) => quoteResponse.headers.get(name)),
  );
  return { payload, header: http.encodePaymentSignatureHeader(payload) };
}

export interface AuthorizationFields {
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  chainId: number;
  verifyingContract: Address;
  name: string;
  version: string;
}

/** A hand-built payment, for the refusal cases the official client would never produce. */
export async function craftedBaseHeader(
  account: PrivateKeyAccount,
  accepted: Record<string, unknown>,
  fields: AuthorizationFields,
  tamper: (signature: Hex) => Hex = (signature) => signature,
): Promise<Record<string, string>> {
  const message = {
    from: account.address,
    to: fields.to,
    value: fields.value,
    validAfter: fields.validAfter,
    validBefore: fields.validBefore,
    nonce: fields.nonce,
  };
  const signature = await account.signTypedData({
    domain: {
      name: fields.name,
      version: fields.version,
      chainId: fields.chainId,
      verifyingContract: fields.verifyingContract,
    },
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  return {
    "PAYMENT-SIGNATURE": encodePaymentSignature({
      x402Version: 2,
      accepted,
      payload: {
        signature: tamper(signature),
        authorization: {
          from: account.address,
          to: fields.to,
          value: fields.value.toString(),
          validAfter: fields.validAfter.toString(),
          validBefore: fields.validBefore.toString(),
          nonce: fields.nonce,
        },
      },
    }),
  };
}
