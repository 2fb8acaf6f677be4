import { eq } from "drizzle-orm";
import type { Executor } from "../db/client";
import { hosts } from "../db/schema";
import { log } from "../log";

/**
 * The host's `agent_last_seen_at`: when the gateway last heard its agent. Written when the agent
 * announces its models, on its heartbeats at most every `everyMs`, and when its connection
 * closes, so "last seen" survives the agent, a restart of this gateway and a change of replica.
 */
export class AgentLastSeen {
  readonly #executor: Executor;
  readonly #everyMs: number;
  readonly #written = new Map<string, number>();

  constructor(executor: Executor, everyMs = 30_000) {
    this.#executor = executor;
    this.#everyMs = everyMs;
  }

  /** The agent was heard now; `force` writes even within `everyMs` of the last write (connect, close). */
  seen(hostId: string, force = false): void {
    const now = Date.now();
    const last = this.#written.get(hostId);
    if (!force && last !== undefined && now - last < this.#everyMs) return;
    this.#written.set(hostId, now);
    this.#executor
      .update(hosts)
      .set({ agentLastSeenAt: new Date(now) })
      .where(eq(hosts.id, hostId))
      .then(
        () => undefined,
        (error: unknown) =>
          log.warn("could not record when the agent was last seen", { provider: hostId, error }),
      );
  }

  /** The connection is gone: written once more, then forgotten (bounded by the agents connected). */
  closed(hostId: string): void {
    this.seen(hostId, true);
    this.#written.delete(hostId);
  }
}
