import { readFileSync } from "node:fs";
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { getAddMemoInstruction } from "@solana-program/memo";
import { findAssociatedTokenPda, getTransferCheckedInstruction } from "@solana-program/token";
import { fetchHostProfile, type HostProfile, usdc } from "./host-api";

type Print = (line: string) => void;

/** A Solana CLI keypair file: a JSON array of the 64 secret-and-public key bytes. */
function readKeypairFile(path: string): Uint8Array {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(
      `cannot read the keypair file ${path}: ${error instanceof Error ? error.message : error}`,
    );
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 64 ||
    !parsed.every((byte) => Number.isInteger(byte) && byte >= 0 && byte <= 255)
  )
    throw new Error(
      `${path} is not a Solana keypair file (a JSON array of 64 bytes, as solana-keygen writes)`,
    );
  return Uint8Array.from(parsed as number[]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `pod-agent bond`: posts what is missing of the host's bond from a keypair file, for a host
 * with no browser wallet. The gateway says how much is missing and where it goes; one USDC
 * TransferChecked plus a Memo with the bond code, as the provider page builds it. Nothing is
 * sent when the bond is already held or the host is past `pending`, so running it twice posts
 * once. It then waits for the gateway to see the transfer and activate the host.
 */
export async function postBond(
  input: { gateway: string; hostToken: string; keypairPath: string; waitSeconds: number },
  print: Print,
): Promise<number> {
  const profile = await fetchHostProfile(input.gateway, input.hostToken);
  const { bond } = profile;
  const missing = BigInt(Math.max(0, bond.amount_microunits - bond.held_microunits));
  if (profile.status !== "pending" || missing === 0n) {
    print(
      `nothing sent: the host is ${profile.status} and its bond holds ${usdc(bond.held_microunits)} of ${usdc(bond.amount_microunits)}`,
    );
    return 0;
  }
  const chain = bond.solana;
  if (!chain.enabled || !chain.rpc_url || !chain.deposit_token_account || !chain.usdc_mint) {
    print(`this gateway takes no on-chain bonds: ${chain.reason ?? "ask its operator to activate the host"}`);
    return 1;
  }
  const signer = await createKeyPairSignerFromBytes(readKeypairFile(input.keypairPath));
  const rpc = createSolanaRpc(chain.rpc_url);
  const tokenProgram = address(chain.token_program ?? "");
  const mint = address(chain.usdc_mint);
  const [source] = await findAssociatedTokenPda({ owner: signer.address, mint, tokenProgram });
  const held = await rpc
    .getTokenAccountBalance(source)
    .send()
    .then((result) => BigInt(result.value.amount))
    .catch(() => 0n);
  if (held < missing) {
    print(`${signer.address} holds ${usdc(held)}; the bond needs ${usdc(missing)} more. Nothing sent.`);
    return 1;
  }
  print(`posting ${usdc(missing)} from ${signer.address} with the memo ${bond.memo}`);
  const { value: lifetime } = await rpc.getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayerSigner(signer, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(lifetime, draft),
    (draft) =>
      appendTransactionMessageInstructions(
        [
          getTransferCheckedInstruction(
            {
              source,
              mint,
              destination: address(chain.deposit_token_account ?? ""),
              authority: signer,
              amount: missing,
              decimals: chain.usdc_decimals ?? 6,
            },
            { programAddress: tokenProgram },
          ),
          getAddMemoInstruction({ memo: bond.memo }, { programAddress: address(chain.memo_program ?? "") }),
        ],
        draft,
      ),
  );
  const signed = await signTransactionMessageWithSigners(message);
  const signature = getSignatureFromTransaction(signed);
  await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: "base64" }).send();
  print(`sent: ${signature}`);
  const wanted = chain.commitment === "finalized" ? ["finalized"] : ["confirmed", "finalized"];
  const deadline = Date.now() + input.waitSeconds * 1000;
  let confirmed = false;
  while (Date.now() < deadline) {
    if (!confirmed) {
      const { value } = await rpc.getSignatureStatuses([signature]).send();
      const status = value[0];
      if (status?.err) {
        print("the transfer failed on chain; nothing was posted");
        return 1;
      }
      if (status?.confirmationStatus && wanted.includes(status.confirmationStatus)) {
        confirmed = true;
        print(`confirmed on chain (${status.confirmationStatus}); waiting for the gateway to see it`);
      }
    } else {
      const now: HostProfile = await fetchHostProfile(input.gateway, input.hostToken);
      if (now.status !== "pending") {
        print(`host ${now.provider_id} is ${now.status}: bond of ${usdc(now.bond.held_microunits)} received`);
        return 0;
      }
    }
    await sleep(1_000);
  }
  print(
    confirmed
      ? "the transfer is on chain but the gateway has not activated the host yet; pod-agent status shows when it does"
      : "the transfer is not confirmed yet; pod-agent status shows when the host is active",
  );
  return 1;
}
