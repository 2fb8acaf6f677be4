import { createHash, type Hash, hash } from "node:crypto";
import type { HostAttestation, UsageReceipt } from "@pod-gateway/contracts/usage-receipt";
import type { ChunkSource } from "../http/streamed-response";
import { ReceiptSlot } from "../ledger/receipt-slot";
import { log } from "../log";
import type { Usage } from "../pricing/cost";
import type { Candidate } from "../providers/candidate";
import { issueReceipt } from "../receipts/issue-receipt";
import type { ReceiptServices } from "../receipts/receipt-services";
import { attestationHolds } from "../receipts/verify-receipt";
import type { MeteredUsage, TokenizerFamily } from "../usage/meter-usage";
import { whileUpstreamWorks } from "./after-answer";
import type { RequestOutcome } from "./settle-request";

/** The response header a receipt travels in; a stream's comes as its last SSE comment instead. */
export const receiptHeader = "x-pod-receipt";

/** What a request's receipt collects while it is served: hashes as the bytes go, the host's word. */
export interface ReceiptDraft {
  requestSha256: string;
  /** The bytes the caller was sent (a stream's, as they go). */
  response: ResponseDigest;
  host: HostAttestation | undefined;
  /** The signed receipt, once the request settled. */
  jws: string | undefined;
  /** How it is stored with its settlement, if it is signed before the settlement's batch is written. */
  slot: ReceiptSlot;
}

/**
 * A request body's SHA-256 for its receipt, worked out while the upstream works on the request
 * (`soon`) or when first asked: not between the upstream's answer and the caller's.
 */
export class RequestDigest {
  readonly #body: string;
  #hex: string | undefined;

  constructor(body: string) {
    this.#body = body;
  }

  get hex(): string {
    this.#hex ??= hash("sha256", this.#body, "hex");
    return this.#hex;
  }

  soon(): void {
    whileUpstreamWorks(() => this.hex);
  }
}

/**
 * The SHA-256 of what the caller was sent: a whole reply hashed in one call when the receipt is
 * signed, a stream chunk by chunk as it goes. A `Hash` object costs more to make than a one-shot
 * hash of a short reply does to run (node:crypto looks its algorithm up per object).
 */
class ResponseDigest {
  #whole: string | undefined;
  #chunks: Hash | undefined;

  /** A whole reply, as it was sent. */
  whole(body: string): void {
    this.#whole = body;
  }

  /** A stream's next bytes. */
  update(chunk: Uint8Array): void {
    this.#chunks ??= createHash("sha256");
    this.#chunks.update(chunk);
  }

  /** The hash of everything so far; a stream may go on after it. */
  get hex(): string {
    if (this.#whole !== undefined) return hash("sha256", this.#whole, "hex");
    return this.#chunks?.copy().digest("hex") ?? hash("sha256", "", "hex");
  }
}

export function receiptDraft(request: RequestDigest): ReceiptDraft {
  return {
    requestSha256: request.hex,
    response: new ResponseDigest(),
    host: undefined,
    jws: undefined,
    slot: new ReceiptSlot(),
  };
}

export interface ReceiptSettlement {
  requestId: string;
  accountId: bigint;
  payer: { wallet: string; network: string } | undefined;
  model: string;
  candidate: Candidate;
  family: TokenizerFamily;
  metered: MeteredUsage;
  /** The most input and output the hold covered: counts at these were bounded by it. */
  bounds: { input: number; output: number };
  charged: bigint;
  hostShare: bigint;
  outcome: RequestOutcome;
}

/** How a request's billed counts were arrived at (its receipt and its usage record say so). */
export function countedBy(
  settlement: Pick<ReceiptSettlement, "metered" | "family">,
): UsageReceipt["usage"]["counted_by"] {
  if (!settlement.metered.counted) return "upstream_report";
  return settlement.family === "estimated" ? "gateway_estimate" : "gateway_tokenizer";
}

function bounded(usage: Usage, bounds: ReceiptSettlement["bounds"]): boolean {
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return usage.outputTokens >= bounds.output || input >= bounds.input;
}

/**
 * Signs the settled request's receipt into the draft (and queues it to be stored). A host's
 * attestation goes in only if its signature holds; a receipt that cannot be made is logged and
 * the request goes on without one: the money has moved either way.
 */
export async function signRequestReceipt(
  app: ReceiptServices,
  draft: ReceiptDraft,
  settlement: ReceiptSettlement,
): Promise<void> {
  if (!app.receipts) return;
  const host = draft.host && attestationHolds(draft.host) ? draft.host : undefined;
  if (draft.host && !host)
    log.warn("an agent's job attestation does not verify: the receipt goes without it", {
      requestId: settlement.requestId,
      provider: settlement.candidate.providerId,
    });
  try {
    draft.jws = await issueReceipt(
      app.receipts,
      {
        requestId: settlement.requestId,
        accountId: settlement.accountId,
        x402Payer: settlement.payer,
        model: settlement.model,
        route: settlement.candidate.route,
        providerId: settlement.candidate.providerId,
        price: settlement.candidate.price,
        usage: settlement.metered.usage,
        countedBy: countedBy(settlement),
        bounded: bounded(settlement.metered.usage, settlement.bounds),
        charged: settlement.charged,
        hostShare: settlement.hostShare,
        outcome: settlement.outcome,
        requestSha256: draft.requestSha256,
        responseSha256: draft.response.hex,
        host,
      },
      draft.slot,
    );
  } catch (error) {
    log.error("receipt signing failed", { requestId: settlement.requestId, error });
  }
}

const encoder = new TextEncoder();

/**
 * The caller's stream with every byte hashed for its receipt, and the receipt as a last SSE
 * comment once the request settled: a comment line is ignored by every SSE client (the
 * official SDKs, the AI SDK's parser), so none of them sees an event it does not know.
 */
export function receiptedStream(source: ChunkSource, draft: ReceiptDraft): ChunkSource {
  async function* relay(): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) {
      draft.response.update(chunk);
      yield chunk;
    }
    if (draft.jws) yield encoder.encode(`: ${receiptHeader} ${draft.jws}\n\n`);
  }
  const chunks = relay();
  return {
    [Symbol.asyncIterator]: () => chunks,
    cancel: () => source.cancel(),
    onCutOff: (listener) => source.onCutOff(listener),
  };
}
