/**
 * A host's standing as its trust record says (the rules and the reading are lib/trust's), held
 * here so routing reads it without knowing trust: `demoted` hosts are tried after every healthy
 * candidate, `excluded` hosts are not routed at all. `proven` means the evidence is strong
 * enough to slash automatically (a sustained run of failed canaries: the host serves another model).
 */
export type Standing = "good" | "demoted" | "excluded";

export interface Reputation {
  standing: Standing;
  /** Substitution proven by canaries: slashed automatically. */
  proven: boolean;
  /** Why, in words, one line per rule that fired. */
  reasons: string[];
  counts: {
    canaries: number;
    canaryFailures: number;
    meteringFindings: number;
    protocolViolations: number;
    /** Jobs it accepted and broke (no first chunk in time, a stall, a cut stream) in the last hour. */
    brokenJobs: number;
    /** Real answers checked against the reference in the last 30 days. */
    answersChecked: number;
  };
}

/** A host with no record against it. */
export const goodReputation: Reputation = {
  standing: "good",
  proven: false,
  reasons: [],
  counts: {
    canaries: 0,
    canaryFailures: 0,
    meteringFindings: 0,
    protocolViolations: 0,
    brokenJobs: 0,
    answersChecked: 0,
  },
};

/**
 * Each process's view of every host's standing, for routing's synchronous reads. Trust
 * (`refreshReputations`) fills it from the database on the upkeep interval (so replicas agree
 * within it) and at once for a host this process just recorded an event about.
 */
export class ReputationBook {
  #reputations = new Map<string, Reputation>();

  of(hostId: string): Reputation {
    return this.#reputations.get(hostId) ?? goodReputation;
  }

  standing(hostId: string): Standing {
    return this.of(hostId).standing;
  }

  /** Takes a fresh read: of every host when `hostIds` is absent, else of those hosts only. */
  apply(loaded: ReadonlyMap<string, Reputation>, hostIds?: readonly string[]): void {
    if (!hostIds) {
      this.#reputations = new Map(loaded);
      return;
    }
    for (const hostId of hostIds) {
      const reputation = loaded.get(hostId);
      if (reputation) this.#reputations.set(hostId, reputation);
      else this.#reputations.delete(hostId);
    }
  }
}
