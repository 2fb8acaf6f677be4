import { z } from "zod";
import { assignDeposit, type ResolveResult, refundDeposit } from "../../deposits/solana/resolve-unmatched";
import { GatewayError } from "../../errors/gateway-error";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { isUuid } from "../../ids";
import { findToken, findTokenByDepositCode } from "../../tokens/find-token";
import type { ApiCall } from "../route-definition";
import { depositView } from "./deposit-view";

const assignSchema = z
  .object({
    api_token: z.string().optional(),
    /** The token's deposit code: what a depositor can share with support without giving away the token. */
    deposit_code: z
      .string()
      .regex(/^[0-9a-fA-F]{16}$/, "16 hex characters")
      .optional(),
    note: z.string().min(1).max(500),
  })
  .refine((body) => (body.api_token === undefined) !== (body.deposit_code === undefined), {
    message: "send exactly one of api_token and deposit_code",
    path: ["api_token"],
  });

const refundSchema = z.object({
  note: z.string().min(1).max(500),
  refund_signature: z
    .string()
    .regex(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/, "a base58 transaction signature")
    .optional(),
});

function answer(result: ResolveResult): Response {
  switch (result.type) {
    case "resolved":
      return jsonResponse({ deposit: depositView(result.deposit) });
    case "not_found":
      throw new GatewayError("not_found", "deposit not found");
    case "not_unmatched":
      throw new GatewayError("conflict", `deposit is ${result.status}, not unmatched`);
    case "nothing_to_assign":
      throw new GatewayError(
        "conflict",
        `deposit (${result.reason}) put no USDC in suspense, so there is nothing to credit; mark it refunded instead`,
      );
  }
}

/**
 * POST /v1/admin/deposits/<signature>/assign – credit an unmatched USDC deposit to a token, from
 * suspense. The token is named by `deposit_code` (what a depositor tells support) or `api_token`.
 */
export async function assignUnmatched({
  app,
  request,
  params,
  bodyLimit,
}: ApiCall<"admin">): Promise<Response> {
  const body = await readValidatedJson(request, assignSchema, bodyLimit);
  const token =
    body.deposit_code !== undefined
      ? await findTokenByDepositCode(app.database.db, body.deposit_code.toLowerCase())
      : body.api_token !== undefined && isUuid(body.api_token)
        ? await findToken(app.database.db, body.api_token)
        : undefined;
  if (!token) throw new GatewayError("not_found", "token not found");
  return answer(
    await assignDeposit(app.database.db, { signature: params.signature ?? "", token, note: body.note }),
  );
}

/**
 * POST /v1/admin/deposits/<signature>/refund – record that an unmatched deposit goes back to its
 * sender. Its USDC leaves suspense; the transfer itself is the operator's, from the deposit wallet.
 */
export async function refundUnmatched({
  app,
  request,
  params,
  bodyLimit,
}: ApiCall<"admin">): Promise<Response> {
  const body = await readValidatedJson(request, refundSchema, bodyLimit);
  return answer(
    await refundDeposit(app.database.db, {
      signature: params.signature ?? "",
      note: body.note,
      refundSignature: body.refund_signature,
    }),
  );
}
