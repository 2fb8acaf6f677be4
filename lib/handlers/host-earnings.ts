import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { AppContext } from "../app-context";
import { type HostPayout, hostPayouts } from "../db/schema";
import { badRequest, GatewayError } from "../errors/gateway-error";
import { authenticateHost } from "../hosts/authenticate-host";
import { requireAdmin } from "../hosts/require-admin";
import { finishRetirements, startRetirement } from "../hosts/retire-host";
import { readValidatedJson } from "../http/read-body";
import { errorResponse, jsonResponse } from "../http/responses";
import { isUuid, newId } from "../ids";
import { hostEarnings, hostPayoutList, hostTransactions } from "../payouts/host-earnings";
import { isSolanaAddress } from "../payouts/payout-worker";
import { requestWithdrawal } from "../payouts/request-withdrawal";
import { parseUsdcAmount } from "../relays/usdc-amount";

const noStore = { "cache-control": "no-store" };

function payoutView(payout: HostPayout) {
  return {
    id: payout.id,
    kind: payout.kind,
    amount_microunits: Number(payout.amount),
    destination: payout.destination,
    status: payout.status,
    signature: payout.signature,
    created_at: payout.createdAt.toISOString(),
    confirmed_at: payout.confirmedAt?.toISOString() ?? null,
    error: payout.error,
  };
}

/** GET /v1/host/balance – earnings not yet withdrawn, what may be withdrawn now, and open payouts. */
export async function handleHostBalance(app: AppContext, request: Request): Promise<Response> {
  try {
    const host = await authenticateHost(app.database.db, request);
    const earnings = await hostEarnings(app.database.db, app.env, host.id);
    const payouts = await hostPayoutList(app.database.db, host.id);
    return jsonResponse(
      {
        provider_id: host.id,
        usdc_balance: Number(earnings.balance),
        withdrawable_usdc_balance: Number(earnings.withdrawable),
        pending_withdrawals_usdc: Number(earnings.pending),
        limits: {
          minimum_microunits: Number(app.env.HOST_WITHDRAW_MIN_MICROUNITS),
          daily_cap_microunits: Number(app.env.HOST_WITHDRAW_DAILY_CAP_MICROUNITS),
          review_above_microunits: Number(app.env.HOST_WITHDRAW_REVIEW_MICROUNITS),
        },
        payouts: payouts.map(payoutView),
      },
      200,
      noStore,
    );
  } catch (error) {
    return errorResponse("openai", error, newId("req"));
  }
}

/** GET /v1/host/transactions?limit=&before= – credits per settled job (+) and withdrawals (−), newest first. */
export async function handleHostTransactions(app: AppContext, request: Request): Promise<Response> {
  try {
    const host = await authenticateHost(app.database.db, request);
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
          request_id: row.metadata.request_id ?? null,
          model: row.metadata.model ?? null,
          payout_id: row.metadata.payout_id ?? null,
        })),
        next_before: rows.length === limit ? rows.at(-1)?.createdAt.toISOString() : null,
      },
      200,
      noStore,
    );
  } catch (error) {
    return errorResponse("openai", error, newId("req"));
  }
}

const withdrawSchema = z.object({
  /** A decimal USDC amount such as "12.5". */
  amount_usdc: z.union([z.string(), z.number()]),
  /** A Solana address; the host's enrolled wallet when absent. */
  destination: z.string().trim().optional(),
});

/** POST /v1/host/withdraw (Idempotency-Key header) – queue a USDC payout of earnings to a Solana wallet. */
export async function handleHostWithdraw(app: AppContext, request: Request): Promise<Response> {
  try {
    const host = await authenticateHost(app.database.db, request);
    const idempotencyKey = request.headers.get("idempotency-key")?.trim();
    if (!idempotencyKey || idempotencyKey.length > 200) {
      throw badRequest("send an Idempotency-Key header (up to 200 characters) so a retry cannot pay twice");
    }
    const body = await readValidatedJson(request, withdrawSchema, app.env.MAX_BODY_BYTES);
    const amount = parseUsdcAmount(body.amount_usdc, "amount_usdc");
    if (amount <= 0n) throw badRequest("amount_usdc must be a positive USDC amount");
    const destination = body.destination ?? host.wallet;
    if (!isSolanaAddress(destination)) throw badRequest("destination must be a Solana address");
    const { payout, replayed } = await requestWithdrawal(app.database.db, app.env, host, {
      amount,
      destination,
      idempotencyKey,
    });
    return jsonResponse(payoutView(payout), replayed ? 200 : 202, noStore);
  } catch (error) {
    return errorResponse("openai", error, newId("req"));
  }
}

/** POST /v1/host/retire – leave routing after in-flight jobs finish; the bond returns after the cooldown. */
export async function handleHostRetire(app: AppContext, request: Request): Promise<Response> {
  try {
    const host = await authenticateHost(app.database.db, request);
    if (!(await startRetirement(app, host.id)) && host.status !== "retiring") {
      throw new GatewayError("conflict", `host is already ${host.status}`);
    }
    await finishRetirements(app);
    const cooldownDays = app.env.HOST_BOND_COOLDOWN_SECONDS / 86_400;
    return jsonResponse(
      {
        provider_id: host.id,
        status: "retiring",
        note: `in-flight jobs finish, then the host is retired; the bond returns to ${host.wallet} after a ${cooldownDays}-day cooldown`,
      },
      202,
      noStore,
    );
  } catch (error) {
    return errorResponse("openai", error, newId("req"));
  }
}

/** POST /v1/admin/payouts/<id>/approve – release a withdrawal held for review. */
export async function handleApprovePayout(
  app: AppContext,
  request: Request,
  payoutId: string,
): Promise<Response> {
  try {
    requireAdmin(app.env, request);
    if (!isUuid(payoutId)) throw new GatewayError("not_found", "payout not found");
    const [payout] = await app.database.db
      .update(hostPayouts)
      .set({ status: "requested", updatedAt: new Date() })
      .where(and(eq(hostPayouts.id, payoutId), eq(hostPayouts.status, "awaiting_approval")))
      .returning();
    if (!payout) throw new GatewayError("not_found", "no payout awaiting approval with that id");
    return jsonResponse(payoutView(payout));
  } catch (error) {
    return errorResponse("openai", error, newId("req"));
  }
}
