import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  type GetLatestBlockhashApi,
  type GetSignatureStatusesApi,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  pipe,
  type Rpc,
  type SendTransactionApi,
  type Signature,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signBytes,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import {
  findAssociatedTokenPda,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from "@solana-program/token";

/**
 * A self-broadcasting x402 client written the way a wallet integration would be: it reads
 * the quote, pays `pay_to` itself with @solana/kit, waits for confirmation, and retries the
 * byte-identical request with PAYMENT-SIGNATURE. Tests use its pieces separately to build
 * the attacks (underpay, replay, someone else's transfer, and so on).
 */

/** The three RPC methods a self-broadcasting payer needs. */
export type PayingRpc = Rpc<GetLatestBlockhashApi & SendTransactionApi & GetSignatureStatusesApi>;

export interface NativeEntry {
  asset: "USDC" | "SOL";
  scheme: string;
  network: string;
  pay_to: string;
  amount_microunits: number;
  quote_id: string;
  expires_at: string;
  mode: string;
}

export interface Quote {
  x402Version: number;
  quote_id: string;
  accepts: Array<Record<string, unknown>>;
  resource: { url: string };
}

export function decodeQuote(response: Response): Quote {
  const header = response.headers.get("payment-required");
  if (!header) throw new Error(`no PAYMENT-REQUIRED header (status ${response.status})`);
  return JSON.parse(Buffer.from(header, "base64").toString("utf8")) as Quote;
}

export function nativeEntry(quote: Quote, asset: "USDC" | "SOL"): NativeEntry {
  const entry = quote.accepts.find((candidate) => candidate.asset === asset);
  if (!entry) throw new Error(`the quote has no ${asset} entry`);
  return entry as unknown as NativeEntry;
}

export function encodePaymentSignature(payload: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(payload), "utf8").toString("base64");
}

/** Transfers `amount` (USDC microunits or lamports) from `wallet` to `payTo` and waits for confirmation. */
export async function payNative(input: {
  rpc: PayingRpc;
  wallet: KeyPairSigner;
  asset: "USDC" | "SOL";
  payTo: string;
  amount: bigint;
  usdcMint: Address;
  /** Sends without preflight, so a failing transfer lands (fee paid, nothing moved). */
  skipPreflight?: boolean;
  /** Returns as soon as the transaction is sent (default: waits for confirmation). */
  confirm?: boolean;
}): Promise<Signature> {
  const instruction = await transferInstruction(input);
  return sendAndConfirm(input.rpc, input.wallet, [instruction], {
    skipPreflight: input.skipPreflight ?? false,
    confirm: input.confirm ?? true,
  });
}

async function transferInstruction(input: {
  wallet: KeyPairSigner;
  asset: "USDC" | "SOL";
  payTo: string;
  amount: bigint;
  usdcMint: Address;
}): Promise<Instruction> {
  const payTo = address(input.payTo);
  if (input.asset === "SOL") {
    return getTransferSolInstruction({ source: input.wallet, destination: payTo, amount: input.amount });
  }
  const [source] = await findAssociatedTokenPda({
    owner: input.wallet.address,
    mint: input.usdcMint,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const [destination] = await findAssociatedTokenPda({
    owner: payTo,
    mint: input.usdcMint,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  return getTransferCheckedInstruction({
    source,
    mint: input.usdcMint,
    destination,
    authority: input.wallet,
    amount: input.amount,
    decimals: 6,
  });
}

async function sendAndConfirm(
  rpc: PayingRpc,
  feePayer: KeyPairSigner,
  instructions: Instruction[],
  options: { skipPreflight?: boolean; confirm?: boolean } = {},
): Promise<Signature> {
  const { value: lifetime } = await rpc.getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayerSigner(feePayer, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(lifetime, draft),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  const transaction = await signTransactionMessageWithSigners(message);
  const signature = await rpc
    .sendTransaction(getBase64EncodedWireTransaction(transaction), {
      encoding: "base64",
      skipPreflight: options.skipPreflight ?? false,
    })
    .send();
  if (options.confirm === false) return signature;
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    const status = value[0];
    if (status && (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized")) {
      return signature;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`transaction ${signature} was not confirmed`);
}

/** The balance-scheme proof: the wallet's ed25519 signature over `usepod-x402-spend:<quote_id>`, base58. */
export async function balanceProof(wallet: KeyPairSigner, quoteId: string): Promise<string> {
  const signature = await signBytes(
    wallet.keyPair.privateKey,
    new TextEncoder().encode(`usepod-x402-spend:${quoteId}`),
  );
  return getBase58Decoder().decode(signature);
}

/**
 * The whole flow: quote, pay the chosen native entry in full, settle. `send` must send the
 * same bytes each time it is called (the quote is bound to them).
 */
export async function fetchWithSelfBroadcast(
  send: (headers: Record<string, string>) => Promise<Response>,
  options: { rpc: PayingRpc; wallet: KeyPairSigner; asset: "USDC" | "SOL"; usdcMint: Address },
): Promise<{ response: Response; quote: Quote; signature: Signature }> {
  const first = await send({});
  if (first.status !== 402) throw new Error(`expected a 402 quote, got ${first.status}`);
  const quote = decodeQuote(first);
  const entry = nativeEntry(quote, options.asset);
  const signature = await payNative({
    rpc: options.rpc,
    wallet: options.wallet,
    asset: options.asset,
    payTo: entry.pay_to,
    amount: BigInt(entry.amount_microunits),
    usdcMint: options.usdcMint,
  });
  const response = await send({
    "PAYMENT-SIGNATURE": encodePaymentSignature({
      quote_id: quote.quote_id,
      network: entry.network,
      asset: options.asset,
      payer_wallet: options.wallet.address,
      signature,
    }),
  });
  return { response, quote, signature };
}
