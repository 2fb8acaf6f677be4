import type { CreditResponse } from "@pod-gateway/contracts/operator-console";
import { z } from "zod";
import { GatewayError } from "../../errors/gateway-error";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { isUuid } from "../../ids";
import { operatorOf, recordOperatorAction } from "../../operator-log/operator-actions";
import { creditToken as postCredit } from "../../tokens/credit-token";
import { findToken } from "../../tokens/find-token";
import { readTokenBalance } from "../../tokens/token-balance";
import type { ApiCall } from "../route-definition";

const creditSchema = z.object({
  api_token: z.string(),
  amount_microunits: z.union([
    z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    z.string().regex(/^[1-9][0-9]{0,17}$/),
  ]),
  reason: z.string().min(1).max(500),
  idempotency_key: z.string().min(1).max(200).optional(),
});

/** POST /v1/admin/credits – an operator's manual credit, posted through the ledger like any credit. */
export async function creditToken({ app, request, bodyLimit }: ApiCall<"admin">): Promise<Response> {
  const body = await readValidatedJson(request, creditSchema, bodyLimit);
  const record = isUuid(body.api_token) ? await findToken(app.database.db, body.api_token) : undefined;
  if (!record) throw new GatewayError("not_found", "token not found");
  const amount = BigInt(body.amount_microunits);
  const operator = operatorOf(request);
  const result = await postCredit(app.database.db, {
    tokenId: record.id,
    accountId: record.accountId,
    amount,
    kind: "admin_credit",
    source: { kind: "external", ref: "admin-credits" },
    ...(body.idempotency_key ? { idempotencyKey: `admin:${body.idempotency_key}` } : {}),
    metadata: { reason: body.reason, operator },
  });
  // The audit row names the ledger account, never the token (it is the account's credential).
  if (result.type === "posted")
    await recordOperatorAction(app.database.db, {
      operator,
      action: "credit",
      subject: `account:${record.accountId}`,
      detail: {
        transaction_id: result.transactionId,
        amount_microunits: amount.toString(),
        reason: body.reason,
      },
    });
  const balance = await readTokenBalance(app, record.accountId);
  return jsonResponse({
    credited: result.type === "posted",
    duplicate: result.type === "duplicate",
    transaction_id: result.type === "posted" ? result.transactionId : null,
    amount_microunits: Number(amount),
    usdc_balance: Number(balance.available),
  } satisfies CreditResponse);
}
