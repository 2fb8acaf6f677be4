import { fetchHostProfile, usdc } from "./host-api";
import type { AgentMetrics } from "./metrics";

/**
 * While the host is `pending` (its bond not yet seen), asks the gateway every `everyMs` and
 * logs the moment it becomes active, so an operator watching the log knows when jobs can come.
 * Without a host token the agent cannot ask; the gateway's next auth_ok says it instead.
 */
export function watchActivation(
  input: { gateway: string; hostToken: string | undefined; everyMs: number },
  metrics: AgentMetrics,
  log: (line: string) => void,
  stop: AbortSignal,
): void {
  const { hostToken } = input;
  if (hostToken === undefined) return;
  const timer = setInterval(() => {
    if (metrics.hostStatus !== "pending") return;
    fetchHostProfile(input.gateway, hostToken)
      .then((profile) => {
        if (profile.status === metrics.hostStatus) return;
        metrics.hostStatus = profile.status;
        log(
          profile.status === "active"
            ? `host active: bond of ${usdc(profile.bond.held_microunits)} received; jobs can be routed here now`
            : `host ${profile.status}`,
        );
      })
      .catch(() => undefined);
  }, input.everyMs);
  stop.addEventListener("abort", () => clearInterval(timer), { once: true });
}
