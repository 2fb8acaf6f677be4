import { randomBytes } from "node:crypto";
import {
  type Address,
  generateKeyPairSigner,
  getTransactionEncoder,
  type Instruction,
  type KeyPairSigner,
  lamports,
  type Signature,
} from "@solana/kit";
import { getAddMemoInstruction } from "@solana-program/memo";
import { getTransferSolInstruction } from "@solana-program/system";
import {
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getMintToCheckedInstruction,
  getSyncNativeInstruction,
} from "@solana-program/token";
import { deriveAssociatedTokenAddress } from "../../../lib/chains/solana/associated-token-address";
import {
  MEMO_PROGRAM_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
  WSOL_MINT,
} from "../../../lib/chains/solana/constants";
import type { LocalChain } from "./local-chain";
import { readMint } from "./token-accounts";
import { signInstructions } from "./transactions";

/**
 * Funds test wallets through real transactions signed by a faucet key the chain owns
 * (it is also the USDC mint authority), so seeded balances have the same history and
 * token-account layout as balances produced by the programs themselves.
 */

/** 1e9 SOL: far more than any test spends, far below u64::MAX. */
const FAUCET_LAMPORTS = 1_000_000_000n * 1_000_000_000n;

export interface Faucet {
  address: Address;
  airdrop(to: Address, amount: bigint): Promise<Signature>;
  createAta(owner: Address, mint: Address): Promise<Address>;
  mintTokens(owner: Address, mint: Address, amount: bigint): Promise<Address>;
  wrapSol(owner: Address, amount: bigint): Promise<Address>;
}

export async function createFaucet(chain: LocalChain): Promise<{ faucet: Faucet; signer: KeyPairSigner }> {
  const signer = await generateKeyPairSigner();
  chain.svm.setAccount({
    address: signer.address,
    data: new Uint8Array(),
    executable: false,
    lamports: lamports(FAUCET_LAMPORTS),
    programAddress: SYSTEM_PROGRAM_ADDRESS,
    space: 0n,
  });

  const send = async (instructions: Instruction[]): Promise<Signature> => {
    // A random memo keeps two identical requests in one slot from sharing a signature.
    // (The memo package defaults to a newer program id that validators do not all run.)
    const nonce = getAddMemoInstruction(
      { memo: randomBytes(8).toString("hex") },
      { programAddress: MEMO_PROGRAM_ADDRESS },
    );
    const transaction = await signInstructions({
      feePayer: signer,
      instructions: [...instructions, nonce],
      lifetime: chain.latestBlockhash(),
    });
    return chain.send(new Uint8Array(getTransactionEncoder().encode(transaction)), { skipPreflight: false });
  };

  const tokenProgramOf = (mint: Address): Address => {
    const view = readMint(chain.getAccount(mint));
    if (!view) throw new Error(`local chain: ${mint} is not a mint`);
    return view.programId;
  };

  const createAtaInstruction = (owner: Address, mint: Address) =>
    getCreateAssociatedTokenIdempotentInstructionAsync({
      payer: signer,
      owner,
      mint,
      tokenProgram: tokenProgramOf(mint),
    });

  const faucet: Faucet = {
    address: signer.address,
    airdrop: (to, amount) => send([getTransferSolInstruction({ source: signer, destination: to, amount })]),
    async createAta(owner, mint) {
      await send([await createAtaInstruction(owner, mint)]);
      return deriveAssociatedTokenAddress(owner, mint, tokenProgramOf(mint));
    },
    async mintTokens(owner, mint, amount) {
      const view = readMint(chain.getAccount(mint));
      if (!view || view.mintAuthority !== signer.address) {
        throw new Error(`local chain: the faucet is not the mint authority of ${mint}`);
      }
      const token = await deriveAssociatedTokenAddress(owner, mint, view.programId);
      await send([
        await createAtaInstruction(owner, mint),
        getMintToCheckedInstruction(
          { mint, token, mintAuthority: signer, amount, decimals: view.decimals },
          { programAddress: view.programId },
        ),
      ]);
      return token;
    },
    async wrapSol(owner, amount) {
      const token = await deriveAssociatedTokenAddress(owner, WSOL_MINT);
      await send([
        await createAtaInstruction(owner, WSOL_MINT),
        getTransferSolInstruction({ source: signer, destination: token, amount }),
        getSyncNativeInstruction({ account: token }),
      ]);
      return token;
    },
  };
  return { faucet, signer };
}
