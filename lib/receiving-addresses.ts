import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { privateKeyToAccount } from "viem/accounts";

/** The settings whose address receives or pays money, each on its chain. */
interface ConfiguredAddresses {
  X402_PAY_TO?: string | undefined;
  SOLANA_DEPOSIT_ADDRESS?: string | undefined;
  X402_FEE_PAYER_SECRET?: string | undefined;
  HOST_PAYOUT_SECRET?: string | undefined;
  X402_BASE_PAY_TO?: string | undefined;
  BASE_DEPOSIT_ADDRESS?: string | undefined;
  X402_BASE_SETTLER_KEY?: string | undefined;
}

type Chain = "solana" | "evm";

/** The public address of a Solana 64-byte secret (keygen JSON or base58): its last 32 bytes. */
function solanaPublicKey(secret: string): string | undefined {
  try {
    const text = secret.trim();
    const bytes = text.startsWith("[")
      ? Uint8Array.from(JSON.parse(text) as number[])
      : new Uint8Array(getBase58Encoder().encode(text));
    return bytes.length === 64 ? getBase58Decoder().decode(bytes.slice(32)) : undefined;
  } catch {
    return undefined; // malformed: the setting's own parser reports it at start
  }
}

function evmAddress(key: string): string | undefined {
  try {
    return privateKeyToAccount(key as `0x${string}`).address;
  } catch {
    return undefined;
  }
}

/**
 * Every address that money reaches or leaves from, by chain: x402 pay-to per chain, the
 * deposit wallets (the Solana one also receives host bonds), the x402 fee payer, the host
 * payout wallet and the Base settler. Secrets count by their public address.
 */
function receivingAddresses(env: ConfiguredAddresses): { name: string; chain: Chain; address: string }[] {
  const entries: [string, Chain, string | undefined][] = [
    ["X402_PAY_TO", "solana", env.X402_PAY_TO],
    ["SOLANA_DEPOSIT_ADDRESS", "solana", env.SOLANA_DEPOSIT_ADDRESS],
    [
      "X402_FEE_PAYER_SECRET",
      "solana",
      env.X402_FEE_PAYER_SECRET && solanaPublicKey(env.X402_FEE_PAYER_SECRET),
    ],
    ["HOST_PAYOUT_SECRET", "solana", env.HOST_PAYOUT_SECRET && solanaPublicKey(env.HOST_PAYOUT_SECRET)],
    ["X402_BASE_PAY_TO", "evm", env.X402_BASE_PAY_TO?.toLowerCase()],
    ["BASE_DEPOSIT_ADDRESS", "evm", env.BASE_DEPOSIT_ADDRESS?.toLowerCase()],
    [
      "X402_BASE_SETTLER_KEY",
      "evm",
      env.X402_BASE_SETTLER_KEY && evmAddress(env.X402_BASE_SETTLER_KEY)?.toLowerCase(),
    ],
  ];
  return entries.flatMap(([name, chain, address]) => (address ? [{ name, chain, address }] : []));
}

/**
 * One problem per pair of settings that name the same address on the same chain. Two roles
 * on one address let one transfer count twice: an x402 payment credited again as a deposit
 * to the token in its memo, a payout or bond arriving back as a deposit.
 */
export function addressCollisions(env: ConfiguredAddresses): string[] {
  const all = receivingAddresses(env);
  const problems: string[] = [];
  for (const [index, first] of all.entries())
    for (const second of all.slice(index + 1))
      if (first.chain === second.chain && first.address === second.address)
        problems.push(
          `${first.name} and ${second.name} are the same ${first.chain === "evm" ? "Base" : "Solana"} address (${first.address}): every address that receives or pays money must be distinct, or one transfer could be counted twice`,
        );
  return problems;
}
