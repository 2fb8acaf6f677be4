import { type Address, getAddress, type Hex, type PublicClient } from "viem";
import type { Eip712Token } from "./constants";
import { signedByPayer, type TransferAuthorization } from "./eip3009";

/**
 * The checks every EIP-3009 authorization the gateway submits passes first, without the
 * chain's state: whom it pays, how much, when it is valid, the nonce it must carry, and the
 * payer's signature over the token's domain. Cheapest first; the signature is last.
 */

/**
 * An authorization must stay valid at least this long after it is checked, or it could expire
 * before it is mined (the x402 facilitator's own floor is 6 s; a settler that submits it
 * itself wants the margin of a few blocks).
 */
const MIN_VALIDITY_SECONDS = 10n;

export interface AuthorizationTerms {
  chainId: number;
  token: Eip712Token;
  payTo: Address;
  minValue: bigint;
  /** The latest validBefore accepted (a quote's lifetime); unbounded when undefined. */
  latestValidBefore?: bigint;
  /** The nonce it must carry, when the nonce commits to something (a deposit's token and salt). */
  nonce?: Hex;
}

/** Which term an authorization breaks; each caller words it for its own clients. */
export type AuthorizationFault =
  | "recipient"
  | "below_minimum"
  | "not_yet_valid"
  | "expired"
  | "outlives_terms"
  | "nonce"
  | "signature";

export async function authorizationFault(
  client: Pick<PublicClient, "verifyTypedData">,
  authorization: TransferAuthorization,
  terms: AuthorizationTerms,
): Promise<AuthorizationFault | undefined> {
  if (getAddress(authorization.to) !== getAddress(terms.payTo)) return "recipient";
  if (authorization.value < terms.minValue) return "below_minimum";
  const now = BigInt(Math.floor(Date.now() / 1000));
  if (authorization.validAfter > now) return "not_yet_valid";
  if (authorization.validBefore < now + MIN_VALIDITY_SECONDS) return "expired";
  if (terms.latestValidBefore !== undefined && authorization.validBefore > terms.latestValidBefore) {
    return "outlives_terms";
  }
  if (terms.nonce !== undefined && authorization.nonce.toLowerCase() !== terms.nonce.toLowerCase()) {
    return "nonce";
  }
  if (!(await signedByPayer(client, terms.chainId, terms.token, authorization))) return "signature";
  return undefined;
}
