import type { HostAttestation } from "@pod-gateway/contracts/usage-receipt";
import type { BalanceWatchServices } from "../balance-watch/balance-watch-services";
import type { UsageClaim } from "../dialects/usage/usage-claim";
import type { ChunkSource } from "../http/streamed-response";
import type { KeyServices } from "../keys/key-services";
import type { LedgerServices } from "../ledger/ledger-services";
import type { SettleInferenceResult } from "../ledger/settle-inference";
import type { Usage } from "../pricing/cost";
import type { Candidate } from "../providers/candidate";
import type { TrustFindingSink } from "../providers/trust-finding-sink";
import type { ReceiptServices } from "../receipts/receipt-services";
import type { Services } from "../services";
import {
  activeTraceContext,
  type Context,
  inSpan,
  type Span,
  settlementAttributes,
  traceparentOf,
} from "../telemetry/tracing";
import { countPromptTokens } from "../usage/count-prompt";
import {
  type MeteredUsage,
  type MeterFinding,
  type MeterInput,
  meterRunningUsage,
  meterUsage,
  tokenizerFamilyOf,
} from "../usage/meter-usage";
import type { RelayedContent } from "../usage/relayed-content";
import type { StreamUsageTap } from "../usage/stream-usage-tap";
import type { UsageRecordServices } from "../usage-records/usage-record-services";
import { afterAnswer } from "./after-answer";
import { runningCountJournal } from "./journal-running-count";
import {
  countedBy,
  type ReceiptDraft,
  type RequestDigest,
  receiptDraft,
  receiptedStream,
  receiptHeader,
  signRequestReceipt,
} from "./request-receipt";
import type { ReservedRequest } from "./reserved-request";
import {
  providerSharePercent,
  type RequestOutcome,
  type SettleRequestInput,
  settleRequest,
} from "./settle-request";
import type { RelayStreamOptions } from "./stream-relay";

/** What settling reads: the ledger, the key limits, the balance watch, and the trust sink it hands findings to. */
export interface SettlementServices
  extends Services,
    LedgerServices,
    KeyServices,
    BalanceWatchServices,
    ReceiptServices,
    UsageRecordServices {
  /** Where what the meter finds about a host goes; settlement never waits on it. */
  trustFindings: TrustFindingSink;
}

/**
 * One served request's bill, built once a source answered: meters what was forwarded and
 * relayed (a host's claim is checked, never believed), hands what the meter found about the
 * host to the trust sink without waiting, and settles the hold, once. A step every paid request
 * takes after it is billed (a receipt, a price record) goes in `settle`, after `settleRequest`.
 */
export class RequestSettlement {
  readonly #app: SettlementServices;
  readonly #reserved: ReservedRequest;
  readonly #candidate: Candidate;
  readonly #forwardedBody: string;
  readonly #agentTokens: () => Record<string, number> | undefined;
  readonly #agentAttestation: () => HostAttestation | undefined;
  /** The request's receipt as it is served: undefined with receipts off. */
  readonly #receipt: ReceiptDraft | undefined;
  /** A stream settles after its handler returned: its span joins the request's trace explicitly. */
  readonly #trace: Context | undefined;
  readonly #onSettled: ((usage: Usage, outcome: RequestOutcome, charged: bigint) => void) | undefined;
  readonly #identity: Omit<SettleRequestInput, "usage" | "outcome">;
  /** The prompt's count, once: a stream is metered again for every running count. */
  #promptTokens: Promise<number> | undefined;

  constructor(
    app: SettlementServices,
    reserved: ReservedRequest,
    served: {
      candidate: Candidate;
      /** The body the source was sent: the meter's count of the prompt. */
      forwardedBody: string;
      /** The agent's own job_done counts (a marketplace job), once they arrived: evidence beside a finding. */
      agentTokens(): Record<string, number> | undefined;
      /** The agent's signed statement of the job (a marketplace job), once it arrived. */
      agentAttestation(): HostAttestation | undefined;
      /** Told the metered usage, the outcome and the charge once settled (measured performance, the response cache). */
      onSettled?(usage: Usage, outcome: RequestOutcome, charged: bigint): void;
      /** The request body's digest for its receipt (worked out while the upstream worked). */
      requestDigest: RequestDigest;
    },
  ) {
    this.#app = app;
    this.#reserved = reserved;
    this.#candidate = served.candidate;
    this.#forwardedBody = served.forwardedBody;
    this.#agentTokens = served.agentTokens;
    this.#agentAttestation = served.agentAttestation;
    this.#receipt = app.receipts ? receiptDraft(served.requestDigest) : undefined;
    this.#trace = activeTraceContext();
    this.#onSettled = served.onSettled;
    this.#identity = {
      requestId: reserved.requestId,
      accountId: reserved.accountId,
      hold: reserved.reservation.hold,
      candidate: served.candidate,
      model: (reserved.modelOf?.(served.candidate) ?? reserved.model).id,
    };
  }

  /** What the meter reads: the reply's usage claim and, when it must count, the content relayed. */
  meterInput(claim: UsageClaim, content: () => RelayedContent): MeterInput {
    const reserved = this.#reserved;
    return {
      family: tokenizerFamilyOf(reserved.modelOf?.(this.#candidate) ?? reserved.model),
      trusted: this.#candidate.route !== "marketplace",
      forwardedBody: this.#forwardedBody,
      promptTokens: () => {
        this.#promptTokens ??= countPromptTokens(this.#forwardedBody);
        return this.#promptTokens;
      },
      maxInputTokens: reserved.maxInputTokens,
      maxOutputTokens: reserved.reservation.maxOutputTokens * reserved.inference.choices,
      claim,
      content,
    };
  }

  /**
   * Meters, files the findings (not awaited), settles, signs the receipt and tells the request's
   * `onServed`; what only follows the bill (`onSettled`, the usage record) runs once the answer is
   * written.
   */
  settle(metering: MeterInput, outcome: RequestOutcome): Promise<SettleInferenceResult> {
    return inSpan(
      "settlement",
      { "pod.outcome": outcome },
      async (span) => {
        const agentTokens = this.#agentTokens();
        const metered = await meterUsage({ ...metering, agentTokens });
        this.#reportFindings(metered.findings, agentTokens);
        const settled = await settleRequest(this.#app, {
          ...this.#identity,
          usage: metered.usage,
          excess: metered.excess,
          outcome,
          ...(this.#receipt ? { receipt: this.#receipt.slot } : {}),
        });
        if (this.#receipt) await this.#sign(this.#receipt, metering, metered, settled.charged, outcome);
        span?.setAttributes(settlementAttributes(metered.usage, settled.charged, this.#reserved.model.id));
        afterAnswer(() => {
          this.#onSettled?.(metered.usage, outcome, settled.charged);
          if (this.#app.usageRecords) this.#record(span, metering, metered, settled.charged, outcome);
        });
        // Told at once: a canary's own request reads what was served as soon as it has the answer.
        this.#reserved.onServed?.(this.#candidate, {
          requestId: this.#identity.requestId,
          outcome,
          forwardedBody: this.#forwardedBody,
          answer: () => metering.content().text(),
          outputTokens: metered.usage.outputTokens,
        });
        return settled;
      },
      this.#trace ? { parent: this.#trace } : {},
    );
  }

  /** The caller's whole reply, hashed for the receipt (before `settle`). */
  answered(body: string): void {
    this.#receipt?.response.whole(body);
  }

  /** The receipt header of a settled whole reply. */
  receiptHeaders(): Record<string, string> {
    return this.#receipt?.jws ? { [receiptHeader]: this.#receipt.jws } : {};
  }

  /** The caller's stream, hashed as it goes and closed by its receipt. */
  receipted(chunks: ChunkSource): ChunkSource {
    return this.#receipt ? receiptedStream(chunks, this.#receipt) : chunks;
  }

  #sign(
    draft: ReceiptDraft,
    metering: MeterInput,
    metered: MeteredUsage,
    charged: bigint,
    outcome: RequestOutcome,
  ): Promise<void> {
    draft.host = this.#agentAttestation();
    return signRequestReceipt(this.#app, draft, {
      ...this.#identity,
      model: this.#reserved.inference.model,
      payer: this.#reserved.payer,
      family: metering.family,
      metered,
      bounds: { input: metering.maxInputTokens, output: metering.maxOutputTokens },
      charged,
      hostShare: this.#hostShare(charged),
      outcome,
    });
  }

  #hostShare(charged: bigint): bigint {
    return this.#candidate.route === "centralized" ? 0n : (charged * providerSharePercent) / 100n;
  }

  /** Queues the request's usage record (never waits on its receiver). */
  #record(
    span: Span | undefined,
    metering: MeterInput,
    metered: MeteredUsage,
    charged: bigint,
    outcome: RequestOutcome,
  ): void {
    this.#app.usageRecords?.record({
      requestId: this.#identity.requestId,
      accountId: this.#identity.accountId,
      payer: this.#reserved.payer,
      model: this.#reserved.inference.model,
      servedModel: this.#identity.model,
      route: this.#candidate.route,
      providerId: this.#candidate.providerId,
      usage: metered.usage,
      countedBy: countedBy({ metered, family: metering.family }),
      charged,
      hostShare: this.#hostShare(charged),
      outcome,
      receipt: this.#receipt?.jws,
      traceparent: traceparentOf(span),
      content: () => ({ request: this.#reserved.inference.rawBody, response: metering.content().text() }),
    });
  }

  /**
   * A relayed stream's hooks: its running count journaled as it goes (a crash mid-stream bills
   * the last count, not nothing), metered as its settlement would meter it (the same counts
   * whichever replica bills it), and its settlement at its end.
   */
  streamHooks(): Pick<RelayStreamOptions, "onEnd" | "onProgress"> {
    const runningCount = runningCountJournal(this.#app, this.#identity);
    return {
      ...(runningCount
        ? {
            onProgress: (tap: StreamUsageTap) =>
              runningCount.progress(() => meterRunningUsage(this.meterInput(tap.claim, () => tap.content))),
          }
        : {}),
      onEnd: async (tap, outcome) => {
        runningCount?.ended();
        await this.settle(
          this.meterInput(tap.claim, () => tap.content),
          outcome,
        );
        runningCount?.settled();
      },
    };
  }

  /** A centralized upstream is no host: only marketplace agents and key relays have a trust record. */
  #reportFindings(findings: readonly MeterFinding[], agentTokens: Record<string, number> | undefined): void {
    const candidate = this.#candidate;
    if (findings.length === 0 || candidate.route === "centralized") return;
    this.#app.trustFindings.report(
      findings.map((finding) => ({
        hostId: candidate.providerId,
        kind: finding.kind,
        detail: finding.detail,
        requestId: this.#identity.requestId,
        evidence: {
          route: candidate.route,
          model: candidate.upstreamModelId,
          agent_tokens: agentTokens ?? null,
        },
      })),
    );
  }
}
