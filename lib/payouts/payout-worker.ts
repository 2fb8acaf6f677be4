import { type Address, address, createSolanaRpc, isAddress, type KeyPairSigner } from "@solana/kit";
import { and, eq, inArray, ne, or } from "drizzle-orm";
import { defaultSolanaRpcUrl, usdcMintForNetwork } from "../chains/solana/constants";
import { parseFeePayerSecret } from "../chains/solana/fee-payer-key";
import { type BroadcastRpc, broadcastAndConfirm } from "../chains/solana/transaction-broadcast";
import type { Database } from "../db/client";
import { type HostPayout, hostPayouts, hosts } from "../db/schema";
import type { Env } from "../env";
import { postTransaction } from "../ledger/post-transaction";
import { log } from "../log";
import type { Services } from "../services";
import { payoutAccountIds } from "./payout-accounts";
import { signUsdcTransfer } from "./usdc-transfer";

export interface PayoutRail {
  rpc: BroadcastRpc & ReturnType<typeof createSolanaRpc>;
  payer: KeyPairSigner;
  mint: Address;
}

/**
 * The payout wallet and chain (the services' `payoutRail`), built on first use; undefined when no
 * payout wallet (HOST_PAYOUT_SECRET) is configured.
 */
export function payoutRailLoader(env: Env): () => Promise<PayoutRail | undefined> {
  let rail: Promise<PayoutRail | undefined> | undefined;
  return () => {
    rail ??= buildPayoutRail(env);
    return rail;
  };
}

async function buildPayoutRail(env: Env): Promise<PayoutRail | undefined> {
  const secret = env.HOST_PAYOUT_SECRET;
  if (!secret) return undefined;
  const payer = await parseFeePayerSecret(secret);
  const mint = env.X402_USDC_MINT ?? usdcMintForNetwork(env.SOLANA_NETWORK);
  if (!isAddress(mint)) throw new Error("X402_USDC_MINT is not a Solana address");
  return {
    rpc: createSolanaRpc(env.SOLANA_RPC_URL ?? defaultSolanaRpcUrl(env.SOLANA_NETWORK)),
    payer,
    mint: address(mint),
  };
}

async function setStatus(database: Database, payout: HostPayout, from: string, changes: Partial<HostPayout>) {
  const updated = await database
    .update(hostPayouts)
    .set({ ...changes, updatedAt: new Date() })
    .where(and(eq(hostPayouts.id, payout.id), eq(hostPayouts.status, from)))
    .returning();
  return updated[0];
}

/** The chain confirmed the transfer: the money leaves the books. */
function settleConfirmed(database: Database, payout: HostPayout): Promise<void> {
  return settleBroadcast(
    database,
    payout,
    { status: "confirmed", confirmedAt: new Date() },
    { kind: payout.kind },
    (ids) => ids.external,
  );
}

/** The transfer failed on-chain: the amount goes back where it came from. */
function settleFailed(database: Database, payout: HostPayout, error: string): Promise<void> {
  return settleBroadcast(database, payout, { status: "failed", error }, { error }, (ids) =>
    payout.kind === "bond_return" ? ids.bond : ids.provider,
  );
}

/**
 * A broadcast payout's end, at most once: its status leaves `broadcast` and its amount leaves
 * the in-flight account for `destination` in one transaction. A payout another pass has
 * already settled changes nothing.
 */
async function settleBroadcast(
  database: Database,
  payout: HostPayout,
  end: { status: "confirmed" | "failed"; confirmedAt?: Date; error?: string },
  detail: Record<string, unknown>,
  destination: (ids: Awaited<ReturnType<typeof payoutAccountIds>>) => bigint,
): Promise<void> {
  const ids = await payoutAccountIds(database, payout.hostId);
  await database.transaction(async (tx) => {
    const [row] = await tx
      .update(hostPayouts)
      .set({ ...end, updatedAt: new Date() })
      .where(and(eq(hostPayouts.id, payout.id), eq(hostPayouts.status, "broadcast")))
      .returning();
    if (!row) return;
    await postTransaction(tx, {
      kind: `host_payout_${end.status}`,
      idempotencyKey: `payout-${end.status}:${payout.id}`,
      metadata: { payout_id: payout.id, signature: payout.signature, ...detail },
      entries: [
        { accountId: ids.inFlight, amount: -payout.amount },
        { accountId: destination(ids), amount: payout.amount },
      ],
    });
  });
}

/**
 * One pass of the payout worker. A `requested` payout is signed and its signature and bytes
 * are recorded (status `broadcast`) before the first send, so a crash can only leave a known
 * transaction behind. A `broadcast` payout is re-sent as the same bytes and followed until it
 * is confirmed, failed, or provably expired; only an expired one is signed again.
 */
export async function runPayouts(
  app: Services & { payoutRail(): Promise<PayoutRail | undefined> },
  options: { timeoutMs?: number } = {},
): Promise<number> {
  const rail = await app.payoutRail();
  if (!rail) return 0;
  const database = app.database.db;
  // A suspended host's payouts wait (frozen); one already broadcast is followed to its end.
  const due = (
    await database
      .select({ payout: hostPayouts })
      .from(hostPayouts)
      .innerJoin(hosts, eq(hosts.id, hostPayouts.hostId))
      .where(
        and(
          inArray(hostPayouts.status, ["requested", "broadcast"]),
          or(ne(hosts.status, "suspended"), eq(hostPayouts.status, "broadcast")),
        ),
      )
      .orderBy(hostPayouts.createdAt)
      .limit(20)
  ).map((row) => row.payout);
  let finished = 0;
  for (let payout of due) {
    try {
      if (payout.status === "requested") {
        const { value: lifetime } = await rail.rpc.getLatestBlockhash({ commitment: "confirmed" }).send();
        const signed = await signUsdcTransfer({
          payer: rail.payer,
          mint: rail.mint,
          destination: address(payout.destination),
          amount: payout.amount,
          lifetime,
        });
        const claimed = await setStatus(database, payout, "requested", {
          status: "broadcast",
          signature: signed.signature,
          signedTransaction: signed.wireBase64,
          attempts: payout.attempts + 1,
        });
        if (!claimed) continue;
        payout = claimed;
      }
      if (!payout.signedTransaction) continue;
      const result = await broadcastAndConfirm(rail.rpc, payout.signedTransaction, {
        timeoutMs: options.timeoutMs ?? 20_000,
      });
      if (result.type === "confirmed") {
        await settleConfirmed(database, payout);
        finished += 1;
      } else if (result.type === "failed") {
        await settleFailed(database, payout, result.error);
        finished += 1;
      } else if (result.type === "expired") {
        // It can never land: sign a fresh transfer on the next pass.
        await setStatus(database, payout, "broadcast", {
          status: "requested",
          signature: null,
          signedTransaction: null,
        });
      }
    } catch (error) {
      log.warn("payout attempt failed; retried on the next pass", { payout: payout.id, error });
    }
  }
  return finished;
}

export function isSolanaAddress(value: string): boolean {
  return isAddress(value);
}
