import { sql } from "drizzle-orm";
import { jsonResponse } from "../../http/responses";
import { replicaName } from "../../routing/routing-state";
import type { ApiCall } from "../route-definition";

/**
 * GET /health – which replica answered, database reachability, whether the marketplace is
 * shared through Redis, the agents this replica holds and sees, and which upstreams are
 * configured (never their keys). Redis down is `degraded` but still 200: the replica serves
 * its own agents and every centralized upstream, so a load balancer should keep it.
 */
export async function getHealth({ app }: ApiCall<"none">): Promise<Response> {
  let database: "ok" | "error" = "ok";
  try {
    await app.database.db.execute(sql`SELECT 1`);
  } catch {
    database = "error";
  }
  const upstreams: Record<string, { configured: boolean; dialect: string; simulated?: boolean }> =
    Object.fromEntries(
      [...app.upstreams.values()].map((upstream) => [
        upstream.name,
        { configured: true, dialect: upstream.dialect },
      ]),
    );
  if (app.env.POD_SIMULATOR) upstreams.simulator = { configured: true, dialect: "openai", simulated: true };
  const marketplace = app.routing.registry.status();
  const status = database === "ok" && marketplace.redis !== "down" ? "ok" : "degraded";
  return jsonResponse(
    {
      status,
      version: "0.1.0",
      replica: { id: replicaName(app.env), instance: app.holds.instanceId },
      components: {
        database: { status: database, kind: app.database.kind },
        redis: { status: marketplace.redis },
        marketplace: {
          agents_held: marketplace.agentsHeld,
          agents_seen: marketplace.agentsSeen,
          peers: marketplace.peers,
        },
        upstreams,
      },
    },
    database === "ok" ? 200 : 503,
    { "cache-control": "no-store" },
  );
}
