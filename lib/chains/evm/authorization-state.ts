import type { Address, Hash, Hex, PublicClient } from "viem";
import { eip3009Abi } from "./eip3009";

/** What the token contract says of an authorization: anyone holding it may have submitted it. */

/** True when the contract has marked (from, nonce) used or canceled. */
export function authorizationUsed(
  client: Pick<PublicClient, "readContract">,
  token: Address,
  authorization: { from: Address; nonce: Hex },
): Promise<boolean> {
  return client.readContract({
    address: token,
    abi: eip3009Abi,
    functionName: "authorizationState",
    args: [authorization.from, authorization.nonce],
  });
}

/** How far back the transaction that used an authorization is looked for (about 5.5 hours on Base). */
const LOOKBACK_BLOCKS = 10_000n;

/** The transaction whose AuthorizationUsed log names (from, nonce), among recent blocks. */
export async function findAuthorizationTransaction(
  client: Pick<PublicClient, "getBlockNumber" | "getContractEvents">,
  token: Address,
  authorization: { from: Address; nonce: Hex },
): Promise<Hash | undefined> {
  // Uncached: the transaction may be in the block mined a moment ago.
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  const logs = await client.getContractEvents({
    address: token,
    abi: eip3009Abi,
    eventName: "AuthorizationUsed",
    args: { authorizer: authorization.from, nonce: authorization.nonce },
    fromBlock: latest > LOOKBACK_BLOCKS ? latest - LOOKBACK_BLOCKS : 0n,
    toBlock: "latest",
  });
  return logs[0]?.transactionHash ?? undefined;
}
