import { encodeJsonHeader } from "./header-codec";

/**
 * The PAYMENT-RESPONSE receipt: the x402 v2 SettlementResponse fields (`success`,
 * `transaction`, `network`, `payer`) plus what surplus credit clients need to know.
 * All amounts are USDC microunits except `amount`, which is the received amount in the
 * asset's atomic unit (lamports on SOL).
 */
export interface PaymentReceipt {
  x402Version: 2;
  success: true;
  quote_id: string;
  scheme: "exact" | "balance";
  network: string;
  asset: string;
  payer: string;
  /** The on-chain signature; empty for a balance spend. */
  transaction: string;
  amount: string;
  cap_microunits: number;
  /** The cap again, under the name the reference service's clients read. */
  max_microunits: number;
  /** What this request cost. On a stream the header shows the cap; the final figure follows at the end. */
  charged_microunits: number;
  credited_microunits: number;
  surplus_credited_microunits: number;
  wallet_balance_microunits: number;
  /** False on a streamed response's header: the charge is settled when the stream ends. */
  charge_final: boolean;
  /** The gateway's signed usage receipt of the request (a compact JWS), once it is settled. */
  usage_receipt?: string;
}

export interface ReceiptInput {
  quoteId: string;
  scheme: "exact" | "balance";
  network: string;
  asset: string;
  payer: string;
  transaction: string;
  receivedAmount: bigint;
  capMicrounits: bigint;
  creditedMicrounits: bigint;
  chargedMicrounits: bigint;
  walletBalanceMicrounits: bigint;
  chargeFinal: boolean;
}

export function buildReceipt(input: ReceiptInput): PaymentReceipt {
  const surplus = input.creditedMicrounits - input.chargedMicrounits;
  return {
    x402Version: 2,
    success: true,
    quote_id: input.quoteId,
    scheme: input.scheme,
    network: input.network,
    asset: input.asset,
    payer: input.payer,
    transaction: input.transaction,
    amount: input.receivedAmount.toString(),
    cap_microunits: Number(input.capMicrounits),
    max_microunits: Number(input.capMicrounits),
    charged_microunits: Number(input.chargedMicrounits),
    credited_microunits: Number(input.creditedMicrounits),
    surplus_credited_microunits: Number(surplus > 0n ? surplus : 0n),
    wallet_balance_microunits: Number(input.walletBalanceMicrounits),
    charge_final: input.chargeFinal,
  };
}

export function encodeReceipt(receipt: PaymentReceipt): string {
  return encodeJsonHeader(receipt);
}
