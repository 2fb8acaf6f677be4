import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { AppContext } from "../app-context";
import { badRequest, GatewayError } from "../errors/gateway-error";
import { readJsonBody } from "../http/read-body";
import { errorResponse, jsonResponse } from "../http/responses";
import { isUuid } from "../ids";
import { getAccountBalance } from "../ledger/accounts";
import { creditToken } from "../tokens/credit-token";
import { findToken } from "../tokens/find-token";

const creditSchema = z.object({
  api_token: z.string(),
  amount_microunits: z.union([
    z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    z.string().regex(/^[1-9][0-9]{0,17}$/),
  ]),
  reason: z.string().min(1).max(500),
  idempotency_key: z.string().min(1).max(200).optional(),
});

function bearerMatches(request: Request, expected: string): boolean {
  const header = request.headers.get("authorization") ?? "";
  const presented = Buffer.from(header.replace(/^Bearer\s+/i, ""));
  const wanted = Buffer.from(expected);
  return presented.length === wanted.length && timingSafeEqual(presented, wanted);
}

/** POST /v1/admin/credits – an operator's manual credit, posted through the ledger like any credit. */
export async function handleAdminCredit(app: AppContext, request: Request): Promise<Response> {
  try {
    const adminToken = app.env.ADMIN_TOKEN;
    if (!adminToken) throw new GatewayError("not_found", "admin API is disabled (ADMIN_TOKEN is not set)");
    if (!bearerMatches(request, adminToken))
      throw new GatewayError("unauthorized", "unauthorized: invalid admin token");
    const parsed = creditSchema.safeParse(await readJsonBody(request, app.env.MAX_BODY_BYTES));
    if (!parsed.success)
      throw badRequest(
        parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "),
      );
    const body = parsed.data;
    const record = isUuid(body.api_token) ? await findToken(app.database.db, body.api_token) : undefined;
    if (!record) throw new GatewayError("not_found", "token not found");
    const amount = BigInt(body.amount_microunits);
    const result = await creditToken(app.database.db, {
      tokenId: record.id,
      accountId: record.accountId,
      amount,
      kind: "admin_credit",
      source: { kind: "external", ref: "admin-credits" },
      ...(body.idempotency_key ? { idempotencyKey: `admin:${body.idempotency_key}` } : {}),
      metadata: { reason: body.reason },
    });
    const balance = await getAccountBalance(app.database.db, record.accountId);
    return jsonResponse({
      credited: result.type === "posted",
      duplicate: result.type === "duplicate",
      transaction_id: result.type === "posted" ? result.transactionId : null,
      amount_microunits: Number(amount),
      usdc_balance: Number(balance.available),
    });
  } catch (error) {
    return errorResponse("openai", error);
  }
}
