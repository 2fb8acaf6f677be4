import { jsonResponse } from "../../http/responses";
import { reportJson } from "../../reconcile/core/reconcile-report";
import { reconcile } from "../../reconcile/reconcile";
import type { ApiCall } from "../route-definition";

/** GET /v1/admin/reconcile – the ledger matched against Stripe and the chains; 200 either way, `reconciled` says. */
export async function getReconciliation({ app }: ApiCall<"admin">): Promise<Response> {
  return jsonResponse(reportJson(await reconcile(app)), 200, { "cache-control": "no-store" });
}
