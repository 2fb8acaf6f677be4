import type { HostAgent } from "@pod-gateway/contracts/host-api";
import { formatUsd } from "./format";
import { ScrollRegion } from "./scroll-region";
import { TableHead } from "./table-head";

/** "3 h 12 min", "45 s": how long the agent has been connected. */
function uptime(since: string, now: number): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days`;
}

/** "last seen 3 min ago", or "never seen": when the gateway last heard the agent. */
function lastSeen(at: string | null, now: number): string {
  return at === null
    ? "never seen"
    : `last seen ${uptime(at, now)} ago (${at.slice(0, 16).replace("T", " ")} UTC)`;
}

/**
 * The host's agent as routing sees it: its live state (connected, stalled, offline) and when it
 * was last heard, version, uptime, throughput, and per model the price and the slots free right
 * now. Read from the gateway's marketplace registry, so it is what callers are routed to, not
 * what the agent believes.
 */
export function AgentCard({ agent, status, now }: { agent: HostAgent; status: string; now: number }) {
  return (
    <section className="dash-card" aria-labelledby="agent-title">
      <h2 id="agent-title">Agent</h2>
      {!agent.connected ? (
        <p className="dash-muted" data-testid="agent-summary">
          <strong>Offline</strong>, {lastSeen(agent.last_seen_at, now)}: no job reaches this host. Start the
          agent on the host with <code>pod-agent run</code>; it appears here within a few seconds of
          announcing its models (see <a href="/docs/providers/agent">the agent</a>).
        </p>
      ) : (
        <>
          {agent.stalled ? (
            <p data-testid="agent-stalled">
              <strong>Stalled</strong> since {agent.stalled.since.slice(0, 19).replace("T", " ")} UTC: its
              last job broke ({agent.stalled.detail}) and none has completed since. Callers are failed over to
              other sources, and broken jobs demote, then exclude the host.
            </p>
          ) : null}
          <p data-testid="agent-summary">
            {agent.stalled ? "Connected but stalled" : "Connected"}, {lastSeen(agent.last_seen_at, now)}:
            pod-agent {agent.agent_version ?? "(version not sent)"}
            {agent.connected_at ? `, up ${uptime(agent.connected_at, now)}` : ""},{" "}
            {agent.tokens_per_second > 0
              ? `${agent.tokens_per_second} tokens/s`
              : "no throughput measured yet"}
            .{status === "active" ? "" : ` Jobs are routed to it once the host is active (now ${status}).`}
          </p>
          <ScrollRegion label="Served models">
            <table className="dash-table" data-testid="agent-models">
              <TableHead
                columns={[
                  "Model",
                  { numeric: "Input / 1M" },
                  { numeric: "Output / 1M" },
                  { numeric: "Free slots" },
                ]}
              />
              <tbody>
                {agent.models.map((model) => (
                  <tr key={model.model}>
                    <td>{model.model}</td>
                    <td className="dash-table__num">{formatUsd(model.input_per_1m, { precise: true })}</td>
                    <td className="dash-table__num">{formatUsd(model.output_per_1m, { precise: true })}</td>
                    <td className="dash-table__num">
                      {model.free_slots} of {model.max_concurrent}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        </>
      )}
    </section>
  );
}
