import type { ChainDeposit } from "../../db/schema";

/** One on-chain deposit as the admin API shows it. Amounts are atomic units of `mint` (microunits for USDC). */
export function depositView(row: ChainDeposit) {
  return {
    signature: row.signature,
    network: row.network,
    slot: Number(row.slot),
    block_time: row.blockTime?.toISOString() ?? null,
    status: row.status,
    reason: row.reason,
    memo: row.memo,
    mint: row.mint,
    amount: row.amount.toString(),
    /** USDC microunits this deposit holds in the suspense account (0 for another asset or a zero amount). */
    suspense_microunits: row.suspenseMicrounits.toString(),
    sender: row.sender,
    token_id: row.tokenId,
    provider_id: row.hostId,
    refund_signature: row.refundSignature,
    resolution_note: row.resolutionNote,
    resolved_at: row.resolvedAt?.toISOString() ?? null,
    recorded_at: row.createdAt.toISOString(),
  };
}
