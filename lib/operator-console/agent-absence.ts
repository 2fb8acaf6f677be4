/** Since when an active host's agent has been away, and whether that is its last heartbeat. */
export interface Absence {
  /** Epoch ms: the agent's last heartbeat this process saw, else when it first found the agent away. */
  since: number;
  /** True when `since` is a heartbeat heard (the agent was connected to this process's knowledge). */
  heard: boolean;
}

/**
 * Since when each active host's agent has been away: the last heartbeat this process saw on its
 * upkeep passes or the host's recorded last-seen time, whichever is later; for an agent never
 * heard at all, the pass that first found it away.
 */
export class AgentAbsence {
  readonly #lastHeard = new Map<string, number>();
  readonly #away = new Map<string, Absence>();

  /**
   * `connected`: each connected agent's provider id and its last heartbeat; `recorded`: each
   * host's `agent_last_seen_at` (another replica's agent, or one heard before this process started).
   */
  observe(
    activeHostIds: readonly string[],
    connected: ReadonlyMap<string, Date>,
    now: number,
    recorded: ReadonlyMap<string, Date> = new Map(),
  ): ReadonlyMap<string, Absence> {
    const active = new Set(activeHostIds);
    for (const id of [...this.#lastHeard.keys()]) if (!active.has(id)) this.#lastHeard.delete(id);
    for (const id of [...this.#away.keys()]) if (!active.has(id) || connected.has(id)) this.#away.delete(id);
    for (const id of active) {
      const heartbeat = connected.get(id);
      if (heartbeat !== undefined) {
        this.#lastHeard.set(id, heartbeat.getTime());
        continue;
      }
      if (this.#away.has(id)) continue;
      const heard = Math.max(this.#lastHeard.get(id) ?? 0, recorded.get(id)?.getTime() ?? 0) || undefined;
      this.#away.set(id, heard === undefined ? { since: now, heard: false } : { since: heard, heard: true });
    }
    return this.#away;
  }
}
