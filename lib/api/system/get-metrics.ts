import { sql } from "drizzle-orm";
import { queryRows } from "../../db/client";
import { systemAccounts } from "../../ledger/accounts";
import { readUpstreamExcess } from "../../ledger/upstream-excess";
import { gatewayMetrics } from "../../metrics/gateway-metrics";
import { renderMetrics } from "../../metrics/registry";
import type { ApiCall } from "../route-definition";

/**
 * GET /metrics – Prometheus text format, behind the admin token. Counters are this
 * process's; the gauges are read from the database, so every process reports the books.
 */
export async function getMetrics({ app }: ApiCall<"admin">): Promise<Response> {
  const [holds] = await queryRows<{ count: string | number; amount: string | bigint | null }>(
    app.database.db,
    sql`SELECT count(*) AS count, sum(amount) AS amount FROM holds`,
  );
  const [loss] = await queryRows<{ balance: string | bigint }>(
    app.database.db,
    sql`SELECT balance FROM accounts WHERE kind = ${systemAccounts.inferenceLoss.kind} AND ref = ${systemAccounts.inferenceLoss.ref}`,
  );
  const excess = await readUpstreamExcess(app.database.db);
  const marketplace = app.routing.registry.status();
  const window = app.leases?.window;
  const body = renderMetrics(Object.values(gatewayMetrics), [
    {
      name: "pod_redis_up",
      help: "1 while the marketplace is shared through Redis, 0 while Redis is unreachable (-1: no REDIS_URL).",
      value: marketplace.redis === "up" ? 1 : marketplace.redis === "down" ? 0 : -1,
    },
    {
      name: "pod_marketplace_agents_held",
      help: "Provider agents connected to this replica.",
      value: marketplace.agentsHeld,
    },
    {
      name: "pod_marketplace_agents_seen",
      help: "Provider agents this replica can route to (its own and, through Redis, every other replica's).",
      value: marketplace.agentsSeen,
    },
    {
      name: "pod_replica_peers",
      help: "Other live replicas this one hears through Redis.",
      value: marketplace.peers,
    },
    {
      name: "pod_holds_open",
      help: "Open holds in the database (all processes).",
      value: Number(holds?.count ?? 0),
    },
    {
      name: "pod_holds_open_microunits",
      help: "Microunits held by open holds (all processes).",
      value: Number(holds?.amount ?? 0),
    },
    {
      name: "pod_holds_live",
      help: "Holds of requests this process is serving right now.",
      value: app.holds.liveHolds,
    },
    {
      name: "pod_journal_unjournaled_answers",
      help: "Answers this process sent whose settlements are not stored yet (no journal row, ledger batch not committed): what a kill -9 now would leave unbilled.",
      value: window?.open ?? 0,
    },
    {
      name: "pod_journal_unjournaled_answers_max",
      help: "The most answers this process has had out at once with their settlements not stored.",
      value: window?.widest ?? 0,
    },
    {
      name: "pod_journal_window_bound",
      help: "BILLING_JOURNAL_WINDOW as this process applies it (0: every answer waits for its journal row).",
      value: window?.bound ?? 0,
    },
    {
      name: "pod_journal_unjournaled_microunits",
      help: "What those answers cost: the most a kill -9 now would leave unbilled, in microunits.",
      value: Number(window?.openMicrounits ?? 0n),
    },
    {
      name: "pod_journal_window_bound_microunits",
      help: "BILLING_JOURNAL_WINDOW_MICROUNITS as this process applies it: the most those answers may cost at once.",
      value: window ? Number(window.microunitBound) : 0,
    },
    {
      name: "pod_billing_loss_account_microunits",
      help: "Total cost written off to the loss account (all processes), as a positive number.",
      value: -Number(loss?.balance ?? 0),
    },
    {
      name: "pod_upstream_excess_account_microunits",
      help: "Total usage centralized upstreams reported beyond what the gateway billed, booked to their upstream-excess accounts (all processes).",
      value: Number(excess.totalMicrounits),
    },
  ]);
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" },
  });
}
