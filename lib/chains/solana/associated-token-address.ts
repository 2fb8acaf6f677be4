import { type Address, getAddressEncoder, getProgramDerivedAddress } from "@solana/kit";
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "./constants";

/**
 * The associated token account (ATA) of `owner` for `mint`: the PDA of the ATA program
 * over seeds [owner, tokenProgram, mint]. The same mint under a different token program
 * yields a different address, so the program is part of the answer, not a detail.
 */
export async function deriveAssociatedTokenAddress(
  owner: Address,
  mint: Address,
  tokenProgram: Address = TOKEN_PROGRAM_ADDRESS,
): Promise<Address> {
  const encoder = getAddressEncoder();
  const [pda] = await getProgramDerivedAddress({
    programAddress: ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
    seeds: [encoder.encode(owner), encoder.encode(tokenProgram), encoder.encode(mint)],
  });
  return pda;
}
