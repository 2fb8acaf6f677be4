import { type Hex, isAddress, isHex, verifyMessage } from "viem";

/**
 * The `balance` scheme's proof for an EVM wallet: an EIP-191 `personal_sign` by the payer
 * address over the same UTF-8 message the Solana proof signs, `usepod-x402-spend:<quote_id>`.
 * Never throws for bad input.
 */
export async function verifyEvmBalanceProof(input: {
  message: string;
  payerWallet: string;
  proof: string;
}): Promise<{ type: "valid" } | { type: "invalid"; message: string }> {
  if (!isAddress(input.payerWallet, { strict: false })) {
    return { type: "invalid", message: "payer_wallet is not a valid EVM address" };
  }
  const proof = input.proof.trim();
  if (!isHex(proof) || proof.length !== 132) {
    return { type: "invalid", message: "proof is not a 65-byte EIP-191 signature (0x + 130 hex)" };
  }
  const valid = await verifyMessage({
    address: input.payerWallet,
    message: input.message,
    signature: proof as Hex,
  }).catch(() => false);
  return valid
    ? { type: "valid" }
    : { type: "invalid", message: "proof signature does not verify for payer_wallet" };
}
