import { type Address, type Hex, isAddress, isHex, type PublicClient, parseAbi } from "viem";
import type { Eip712Token } from "./constants";

/** The EIP-3009 surface of FiatToken v2.2 (Circle's USDC) the gateway calls or reads. */
export const eip3009Abi = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function balanceOf(address account) view returns (uint256)",
  "function name() view returns (string)",
  "function version() view returns (string)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
]);

export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** A signed EIP-3009 authorization, numbers as bigint. */
export interface TransferAuthorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function uint(value: unknown): bigint | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value !== "string" || !/^[0-9]{1,78}$/.test(value)) return undefined;
  return BigInt(value);
}

/**
 * Reads the `exact` EVM payload (`{ signature, authorization: {...} }`) strictly: every
 * field present, addresses and hex well formed, numbers as decimal strings. Undefined for
 * anything else, so nothing half-parsed reaches a signature check.
 */
export function parseTransferAuthorization(
  payload: Record<string, unknown>,
): TransferAuthorization | undefined {
  const authorization = payload.authorization;
  const signature = payload.signature;
  if (!isRecord(authorization) || typeof signature !== "string" || !isHex(signature)) return undefined;
  const { from, to, nonce } = authorization;
  const value = uint(authorization.value);
  const validAfter = uint(authorization.validAfter);
  const validBefore = uint(authorization.validBefore);
  if (typeof from !== "string" || !isAddress(from, { strict: false })) return undefined;
  if (typeof to !== "string" || !isAddress(to, { strict: false })) return undefined;
  if (typeof nonce !== "string" || !isHex(nonce) || nonce.length !== 66) return undefined;
  if (value === undefined || validAfter === undefined || validBefore === undefined) return undefined;
  return { from, to, value, validAfter, validBefore, nonce, signature };
}

/** The key an authorization can be used under once, ever: token, payer and nonce (the chain's own rule). */
export function authorizationKey(token: Address, authorization: { from: Address; nonce: Hex }): string {
  return `${token}:${authorization.from}:${authorization.nonce}`.toLowerCase();
}

/** True when the authorization's signature recovers to its `from` under the token's domain. */
export function signedByPayer(
  client: Pick<PublicClient, "verifyTypedData">,
  chainId: number,
  token: Eip712Token,
  authorization: TransferAuthorization,
): Promise<boolean> {
  const { signature, ...message } = authorization;
  return client
    .verifyTypedData({
      address: authorization.from,
      domain: { name: token.name, version: token.version, chainId, verifyingContract: token.address },
      types: transferWithAuthorizationTypes,
      primaryType: "TransferWithAuthorization",
      message,
      signature,
    })
    .catch(() => false);
}
