import { listUnmatchedDeposits, suspenseBalance } from "../../deposits/solana/resolve-unmatched";
import { jsonResponse } from "../../http/responses";
import type { ApiCall } from "../route-definition";
import { depositView } from "./deposit-view";

/**
 * GET /v1/admin/deposits/unmatched – on-chain deposits the watcher could bind to no token or
 * bond (no memo, an invalid or unknown code, another asset, an amount of zero), newest first,
 * with what the suspense account holds.
 */
export async function listUnmatched({ app }: ApiCall<"admin">): Promise<Response> {
  const database = app.database.db;
  const [rows, suspense] = await Promise.all([listUnmatchedDeposits(database), suspenseBalance(database)]);
  return jsonResponse({ data: rows.map(depositView), suspense_microunits: suspense.toString() }, 200, {
    "cache-control": "no-store",
  });
}
