import type { SolanaOptions } from "@pod-gateway/contracts/dashboard-api";
import type { Connection } from "@solana/web3.js";

export const sleep = (ms: number) => new Promise((resolve) => window.setTimeout(resolve, ms));

/**
 * Waits until a sent transaction reaches the commitment the gateway's watcher reads at (a
 * finalized-only gateway would not see a confirmed one yet). Throws `failedOnChain` when the
 * transaction failed, so the page says what happened to the money.
 */
export async function waitForCommitment(
  connection: Connection,
  options: SolanaOptions,
  signature: string,
  failedOnChain: string,
): Promise<void> {
  const wanted = options.commitment === "finalized" ? ["finalized"] : ["confirmed", "finalized"];
  for (let attempt = 0; attempt < 120; attempt += 1) {
    const { value } = await connection.getSignatureStatuses([signature]);
    const status = value[0];
    if (status?.err) throw new Error(failedOnChain);
    if (status?.confirmationStatus && wanted.includes(status.confirmationStatus)) return;
    await sleep(1000);
  }
  throw new Error("the transaction was not confirmed in time");
}
