import { type Hex, keccak256, stringToBytes, toHex } from "viem";

/**
 * How a Base deposit is bound to a token: the EIP-3009 `nonce` the wallet signs is
 *
 *     nonce = keccak256(utf8("usepod-deposit:" + deposit_code + ":" + salt))
 *
 * with `deposit_code` the token's 16-hex code and `salt` 32 random bytes as lowercase
 * 0x-hex (66 characters). The salt travels beside the signed authorization, so the gateway
 * recomputes the hash; an authorization whose nonce commits to another code (or to none)
 * is never credited to this token, and each deposit has a nonce of its own.
 */
export function depositNonce(depositCode: string, salt: Hex): Hex {
  return keccak256(stringToBytes(`usepod-deposit:${depositCode}:${salt.toLowerCase()}`));
}

/** A fresh salt: 32 random bytes. */
export function randomDepositSalt(): Hex {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

export function isDepositSalt(value: string): value is Hex {
  return /^0x[0-9a-fA-F]{64}$/.test(value);
}
