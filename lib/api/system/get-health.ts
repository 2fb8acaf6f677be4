import { sql } from "drizzle-orm";
import { jsonResponse } from "../../http/responses";
import type { ApiCall } from "../route-definition";

/** GET /health – database reachability and which upstreams are configured (never their keys). */
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
  const status = database === "ok" ? "ok" : "degraded";
  return jsonResponse(
    {
      status,
      version: "0.1.0",
      components: { database: { status: database, kind: app.database.kind }, upstreams },
    },
    status === "ok" ? 200 : 503,
    { "cache-control": "no-store" },
  );
}
