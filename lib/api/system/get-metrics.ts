import { sql } from "drizzle-orm";
import { queryRows } from "../../db/client";
import { systemAccounts } from "../../ledger/accounts";
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
  const body = renderMetrics(Object.values(gatewayMetrics), [
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
      name: "pod_billing_loss_account_microunits",
      help: "Total cost written off to the loss account (all processes), as a positive number.",
      value: -Number(loss?.balance ?? 0),
    },
  ]);
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" },
  });
}
