import type { Executor } from "../db/client";
import { log } from "../log";
import type { ReputationBook } from "../providers/host-standing";
import type { HostFinding, TrustFindingSink } from "../providers/trust-finding-sink";
import { refreshReputations } from "./reputation";
import { recordTrustEvents } from "./trust-events";

interface RecorderDeps {
  database: Executor;
  reputation: ReputationBook;
}

/**
 * The services' trust sink: takes findings without delay and stores them behind the request, one
 * batch at a time, then re-reads the standing of the hosts concerned so this process's routing
 * acts on them at once. Slashing a host the record proves a cheat is the upkeep's trust pass
 * (`upkeepTrust`), never a request's.
 */
export class TrustFindingRecorder implements TrustFindingSink {
  readonly #deps: RecorderDeps;
  #queue: HostFinding[] = [];
  #writing: Promise<void> | undefined;
  /** Findings stored so far: what a test or a probe reads to know the sink caught up. */
  stored = 0;

  constructor(deps: RecorderDeps) {
    this.#deps = deps;
  }

  report(findings: readonly HostFinding[]): void {
    if (findings.length === 0) return;
    this.#queue.push(...findings);
    this.#drain();
  }

  /** Resolves once every finding reported so far is stored (for a stop, and for tests). */
  async idle(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  #drain(): void {
    if (this.#writing || this.#queue.length === 0) return;
    const batch = this.#queue.splice(0);
    this.#writing = this.#write(batch).finally(() => {
      this.#writing = undefined;
      this.#drain();
    });
  }

  async #write(batch: readonly HostFinding[]): Promise<void> {
    const byHost = new Map<string, HostFinding[]>();
    for (const finding of batch) byHost.set(finding.hostId, [...(byHost.get(finding.hostId) ?? []), finding]);
    for (const [hostId, findings] of byHost) {
      await recordTrustEvents(
        this.#deps.database,
        hostId,
        findings.map(({ kind, detail, requestId, evidence }) => ({ kind, detail, requestId, evidence })),
      );
      this.stored += findings.length;
    }
    await refreshReputations(this.#deps.reputation, this.#deps.database, [...byHost.keys()]).catch(
      (error: unknown) => log.error("could not refresh hosts' reputation", { error }),
    );
  }
}
