import type { PaymentProof } from "./payment-header";
import { networkFamily, type PaymentRail, type SettleContext } from "./rails/payment-rail";
import { settleBalance } from "./settle-balance";
import type { Settlement } from "./settlement";
import { x402BadRequest } from "./x402-errors";

/**
 * Hands a payment to the rail of the network it names: the rail verifies it (nothing moves
 * yet), then settles it (claim, transfer, credit, hold the cap). A balance spend needs no
 * chain, only the wallet's signature, which the rail of the wallet's family checks.
 */
export async function settlePayment(
  context: SettleContext,
  rails: readonly PaymentRail[],
  proof: PaymentProof,
): Promise<Settlement> {
  if (proof.type === "balance") return settleBalance(context, rails, proof);
  // Self-broadcast clients of the reference service may omit the network: Solana then.
  const family = proof.network === "" ? "solana" : networkFamily(proof.network);
  const rail = rails.find((candidate) => candidate.family === family);
  if (!rail) throw x402BadRequest(`this gateway takes no x402 payments on ${proof.network || family}`);
  const verified = await rail.verify(context, proof);
  return verified.settle();
}
