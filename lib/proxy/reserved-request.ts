import type { CatalogModel } from "../catalog/models";
import type { InferenceRequest } from "../dialects/inference-request";
import type { Candidate } from "../providers/candidate";
import type { AnswerToKeep } from "../response-cache/response-cache";
import type { Reservation } from "./reserve";
import type { RequestOutcome } from "./settle-request";

/** What a served request hands on once billed: enough to check its answer afterwards. */
export interface ServedJob {
  requestId: string;
  outcome: RequestOutcome;
  /** The body the source was sent. */
  forwardedBody: string;
  /** The answer's text as relayed to the caller. */
  answer(): string;
  /** Output tokens billed. */
  outputTokens: number;
}

/** Where a miss that asked for the response cache hands its answer once it is billed. */
export interface AnswerKeeper {
  /** The largest reply kept: a stream past it is not gathered further. */
  maxBytes: number;
  keep(answer: AnswerToKeep): void;
}

/** A request whose worst case is held, with the sources to try: what serving takes. */
export interface ReservedRequest {
  requestId: string;
  accountId: bigint;
  inference: InferenceRequest;
  model: CatalogModel;
  /** The model a candidate serves when the body named `models` fallbacks (else `model`). */
  modelOf?(candidate: Candidate): CatalogModel;
  candidates: Candidate[];
  reservation: Reservation;
  /** The prompt tokens the hold priced: the most input the meter ever bills. */
  maxInputTokens: number;
  /** An x402 payer (its receipt names the wallet, not the wallet's account). */
  payer?: { wallet: string; network: string };
  /** Told which source served, once the request is settled (canaries and answer checks follow marketplace jobs). */
  onServed?(candidate: Candidate, job: ServedJob): void;
  /** Set when the request asked for the response cache and missed: a completed answer is kept. */
  keeper?: AnswerKeeper;
}
