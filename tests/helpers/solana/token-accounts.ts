import {
  type Address,
  type EncodedAccount,
  type MaybeEncodedAccount,
  none,
  some,
  lamports as toLamports,
} from "@solana/kit";
import { AccountState, getMintDecoder, getMintEncoder, getTokenDecoder } from "@solana-program/token";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../../lib/chains/solana/constants";

/**
 * Reading and writing SPL token state for the local chain: the mint planted at the real
 * devnet USDC address, and the token balances that `getTransaction` reports.
 */

const TOKEN_ACCOUNT_SIZE = 165;
const MINT_SIZE = 82;
/** Token-2022 appends an account-type byte after the base layout: 1 = mint, 2 = account. */
const ACCOUNT_TYPE_OFFSET = 165;

export interface TokenAccountView {
  mint: Address;
  owner: Address;
  amount: bigint;
  programId: Address;
  isNative: boolean;
  frozen: boolean;
}

export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

function isTokenProgram(programAddress: Address): boolean {
  return programAddress === TOKEN_PROGRAM_ADDRESS || programAddress === TOKEN_2022_PROGRAM_ADDRESS;
}

/** The token account stored at `account`, or null when it is anything else. */
export function readTokenAccount(account: MaybeEncodedAccount): TokenAccountView | null {
  if (!account.exists || !isTokenProgram(account.programAddress)) return null;
  const data = account.data;
  const isBaseLayout = data.length === TOKEN_ACCOUNT_SIZE;
  const isExtendedAccount = data.length > ACCOUNT_TYPE_OFFSET && data[ACCOUNT_TYPE_OFFSET] === 2;
  if (!isBaseLayout && !isExtendedAccount) return null;
  const token = getTokenDecoder().decode(data.subarray(0, TOKEN_ACCOUNT_SIZE));
  if (token.state === AccountState.Uninitialized) return null;
  return {
    mint: token.mint,
    owner: token.owner,
    amount: token.amount,
    programId: account.programAddress,
    isNative: token.isNative.__option === "Some",
    frozen: token.state === AccountState.Frozen,
  };
}

export interface MintView {
  decimals: number;
  supply: bigint;
  mintAuthority: Address | null;
  freezeAuthority: Address | null;
  programId: Address;
}

export function readMint(account: MaybeEncodedAccount): MintView | null {
  if (!account.exists || !isTokenProgram(account.programAddress)) return null;
  const data = account.data;
  const isBaseLayout = data.length === MINT_SIZE;
  const isExtendedMint = data.length > ACCOUNT_TYPE_OFFSET && data[ACCOUNT_TYPE_OFFSET] === 1;
  if (!isBaseLayout && !isExtendedMint) return null;
  const mint = getMintDecoder().decode(data.subarray(0, MINT_SIZE));
  if (!mint.isInitialized) return null;
  return {
    decimals: mint.decimals,
    supply: mint.supply,
    mintAuthority: mint.mintAuthority.__option === "Some" ? mint.mintAuthority.value : null,
    freezeAuthority: mint.freezeAuthority.__option === "Some" ? mint.freezeAuthority.value : null,
    programId: account.programAddress,
  };
}

function encodeMintData(input: { decimals: number; supply: bigint; mintAuthority: Address }): Uint8Array {
  return new Uint8Array(
    getMintEncoder().encode({
      mintAuthority: some(input.mintAuthority),
      supply: input.supply,
      decimals: input.decimals,
      isInitialized: true,
      freezeAuthority: none(),
    }),
  );
}

/** A mint account owned by the classic Token program, ready for `svm.setAccount`. */
export function mintAccount(input: {
  address: Address;
  decimals: number;
  supply: bigint;
  mintAuthority: Address;
  lamports: bigint;
}): EncodedAccount {
  const data = encodeMintData(input);
  return {
    address: input.address,
    data,
    executable: false,
    lamports: toLamports(input.lamports),
    programAddress: TOKEN_PROGRAM_ADDRESS,
    space: BigInt(data.length),
  };
}

/** Decimal rendering of `amount` with `decimals` places, done in bigint ("1.5", "0.000001"). */
function formatTokenAmount(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const negative = amount < 0n;
  const digits = (negative ? -amount : amount).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const uiAmountString = formatTokenAmount(amount, decimals);
  // uiAmount is the validator's lossy float field; money code reads `amount` instead.
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}
