import type { HostTransactionPage } from "@pod-gateway/contracts/host-api";
import { badRequest } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import { hostTransactions } from "../../payouts/core/host-earnings";
import type { ApiCall } from "../route-definition";

/** GET /v1/host/transactions?limit=&before= – credits per settled job (+) and withdrawals (−), newest first. */
export async function listHostTransactions({
  app,
  request,
  principal: host,
}: ApiCall<"host">): Promise<Response> {
  const url = new URL(request.url);
  const limit = Math.min(Math.max(Number(url.searchParams.get("limit") ?? 50) || 50, 1), 200);
  const beforeRaw = url.searchParams.get("before");
  const before = beforeRaw ? new Date(beforeRaw) : undefined;
  if (before && Number.isNaN(before.getTime())) throw badRequest("before must be an ISO timestamp");
  const rows = await hostTransactions(app.database.db, host.id, { limit, ...(before ? { before } : {}) });
  return jsonResponse(
    {
      data: rows.map((row) => ({
        id: row.id,
        kind: row.kind,
        amount_microunits: Number(row.amount),
        created_at: row.createdAt.toISOString(),
        request_id: text(row.metadata.request_id),
        model: text(row.metadata.model),
        payout_id: text(row.metadata.payout_id),
        receipt: row.receipt,
      })),
      next_before: (rows.length === limit ? rows.at(-1)?.createdAt.toISOString() : null) ?? null,
    } satisfies HostTransactionPage,
    200,
    { "cache-control": "no-store" },
  );
}

/** A metadata value the ledger wrote as a string; anything else reads as absent. */
function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}
