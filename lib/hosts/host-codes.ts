import { createHash, randomBytes } from "node:crypto";

const alphanumeric = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** No 0/O or 1/I: these codes are read aloud and typed by people. */
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** Uniform characters: bytes at or above the largest multiple of the alphabet size are skipped, so there is no modulo bias. */
function randomString(length: number, alphabet: string): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/** `pod_host_<40 alphanumerics>`: about 238 bits, the shape the reference service's agent and skills expect. */
export function newHostToken(): string {
  return `pod_host_${randomString(40, alphanumeric)}`;
}

/** Host tokens are credentials: only this hash is stored or compared. */
export function hashHostToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function newEnrollmentCode(): string {
  return `POD-ENROLL-${randomString(8, codeAlphabet)}`;
}

/** The bond deposit code; the `POD-BOND-` prefix routes a deposit to the provider-bond ledger. */
export function newBondDepositCode(): string {
  return `POD-BOND-${randomString(8, codeAlphabet)}`;
}
