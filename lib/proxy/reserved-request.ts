import type { CatalogModel } from "../catalog/models";
import type { InferenceRequest } from "../dialects/inference-request";
import type { Candidate } from "../providers/candidate";
import type { Reservation } from "./reserve";

/** A request whose worst case is held, with the sources to try: what serving takes. */
export interface ReservedRequest {
  requestId: string;
  accountId: bigint;
  inference: InferenceRequest;
  model: CatalogModel;
  candidates: Candidate[];
  reservation: Reservation;
  /** The prompt tokens the hold priced: the most input the meter ever bills. */
  maxInputTokens: number;
  /** An x402 payer (its receipt names the wallet, not the wallet's account). */
  payer?: { wallet: string; network: string };
  /** Told which source served, once the request is settled (canaries follow marketplace jobs). */
  onServed?(candidate: Candidate): void;
}
