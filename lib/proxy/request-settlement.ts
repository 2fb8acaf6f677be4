import type { BalanceWatchServices } from "../balance-watch/balance-watch-services";
import type { UsageClaim } from "../dialects/usage/usage-claim";
import type { KeyServices } from "../keys/key-services";
import type { LedgerServices } from "../ledger/ledger-services";
import type { SettleInferenceResult } from "../ledger/settle-inference";
import type { Candidate } from "../providers/candidate";
import type { TrustFindingSink } from "../providers/trust-finding-sink";
import type { Services } from "../services";
import {
  estimateRunningUsage,
  type MeterFinding,
  type MeterInput,
  meterUsage,
  tokenizerFamilyOf,
} from "../usage/meter-usage";
import type { RelayedContent } from "../usage/relayed-content";
import type { StreamUsageTap } from "../usage/stream-usage-tap";
import { runningCountJournal } from "./journal-running-count";
import type { ReservedRequest } from "./reserved-request";
import { type RequestOutcome, type SettleRequestInput, settleRequest } from "./settle-request";
import type { RelayStreamOptions } from "./stream-relay";

/** What settling reads: the ledger, the key limits, the balance watch, and the trust sink it hands findings to. */
export interface SettlementServices extends Services, LedgerServices, KeyServices, BalanceWatchServices {
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
  readonly #identity: Omit<SettleRequestInput, "usage" | "outcome">;

  constructor(
    app: SettlementServices,
    reserved: ReservedRequest,
    served: {
      candidate: Candidate;
      /** The body the source was sent: the meter's count of the prompt. */
      forwardedBody: string;
      /** The agent's own job_done counts (a marketplace job), once they arrived: evidence beside a finding. */
      agentTokens(): Record<string, number> | undefined;
    },
  ) {
    this.#app = app;
    this.#reserved = reserved;
    this.#candidate = served.candidate;
    this.#forwardedBody = served.forwardedBody;
    this.#agentTokens = served.agentTokens;
    this.#identity = {
      requestId: reserved.requestId,
      accountId: reserved.accountId,
      hold: reserved.reservation.hold,
      candidate: served.candidate,
      model: reserved.model.id,
    };
  }

  /** What the meter reads: the reply's usage claim and, when it must count, the content relayed. */
  meterInput(claim: UsageClaim, content: () => RelayedContent): MeterInput {
    const reserved = this.#reserved;
    return {
      family: tokenizerFamilyOf(reserved.model),
      trusted: this.#candidate.route !== "marketplace",
      forwardedBody: this.#forwardedBody,
      maxInputTokens: reserved.maxInputTokens,
      maxOutputTokens: reserved.reservation.maxOutputTokens * reserved.inference.choices,
      claim,
      content,
    };
  }

  /** Meters, files the findings (not awaited), settles, then tells the request's `onServed`. */
  async settle(metering: MeterInput, outcome: RequestOutcome): Promise<SettleInferenceResult> {
    const agentTokens = this.#agentTokens();
    const metered = await meterUsage({ ...metering, agentTokens });
    this.#reportFindings(metered.findings, agentTokens);
    const settled = await settleRequest(this.#app, { ...this.#identity, usage: metered.usage, outcome });
    this.#reserved.onServed?.(this.#candidate);
    return settled;
  }

  /**
   * A relayed stream's hooks: its running count journaled as it goes (a crash mid-stream bills
   * the last count, not nothing), and its settlement at its end.
   */
  streamHooks(): Pick<RelayStreamOptions, "onEnd" | "onProgress"> {
    const runningCount = runningCountJournal(this.#app, this.#identity);
    return {
      ...(runningCount
        ? {
            onProgress: (tap: StreamUsageTap) =>
              runningCount.progress(estimateRunningUsage(this.meterInput(tap.claim, () => tap.content))),
          }
        : {}),
      onEnd: async (tap, outcome) => {
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
