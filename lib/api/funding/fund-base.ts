import { getAddress, isAddress } from "viem";
import { z } from "zod";
import { parseTransferAuthorization } from "../../chains/evm/eip3009";
import type { BaseDepositServices } from "../../deposits/evm/base-deposit-config";
import { MIN_BASE_DEPOSIT_MICROUNITS } from "../../deposits/evm/base-deposit-errors";
import { isDepositSalt } from "../../deposits/evm/base-deposit-nonce";
import type { BaseDeposit } from "../../deposits/evm/base-deposit-records";
import { depositTypedData } from "../../deposits/evm/base-deposit-typed-data";
import { submitBaseDeposit } from "../../deposits/evm/submit-base-deposit";
import { badRequest, GatewayError } from "../../errors/gateway-error";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { readTokenBalance } from "../../tokens/token-balance";
import type { ApiServices } from "../api-services";
import type { ApiCall } from "../route-definition";

const noStore = { "cache-control": "no-store" };

function enabledBaseDeposits(app: ApiServices): BaseDepositServices {
  const settings = app.baseDeposits();
  if (!settings.enabled) {
    throw new GatewayError("service_unavailable", settings.reason, {
      headers: { "x-should-retry": "false" },
    });
  }
  return settings;
}

function microunitsOf(raw: string | null): bigint {
  if (raw === null || !/^[0-9]{1,15}$/.test(raw)) {
    throw badRequest("amount_microunits must be a whole number of USDC microunits (1 USDC = 1000000)", {
      param: "amount_microunits",
    });
  }
  const value = BigInt(raw);
  if (value < MIN_BASE_DEPOSIT_MICROUNITS) {
    throw badRequest(`a deposit must be at least ${MIN_BASE_DEPOSIT_MICROUNITS} microunits (1 USDC)`, {
      param: "amount_microunits",
    });
  }
  return value;
}

/**
 * GET /proxy/<token>/fund/base/typed-data?from=0x…&amount_microunits=5000000 – the EIP-712
 * TransferWithAuthorization a wallet signs to deposit USDC on Base into this token.
 */
export async function getBaseDepositTypedData(call: ApiCall<"token">): Promise<Response> {
  const { app, request, principal: record } = call;
  const services = enabledBaseDeposits(app);
  const query = new URL(request.url).searchParams;
  const from = query.get("from") ?? "";
  if (!isAddress(from, { strict: false })) {
    throw badRequest("from must be the 0x address of the wallet that signs", { param: "from" });
  }
  const value = microunitsOf(query.get("amount_microunits"));
  const signable = await depositTypedData(services, record.depositCode, { from: getAddress(from), value });
  return jsonResponse(
    {
      network: services.chain.network,
      chain_id: services.chain.chainId,
      usdc: services.chain.tokenAddress,
      deposit_address: services.depositAddress,
      deposit_code: record.depositCode,
      amount_microunits: Number(value),
      ...signable,
    },
    200,
    noStore,
  );
}

const submitSchema = z.object({
  authorization: z.record(z.string(), z.unknown()),
  signature: z.string(),
  salt: z.string().refine(isDepositSalt, "must be the 32-byte 0x-hex salt the nonce was made from"),
});

function depositView(deposit: BaseDeposit) {
  return {
    network: deposit.network,
    payer: deposit.payer,
    amount_microunits: Number(deposit.amountMicrounits),
    nonce: deposit.nonce,
    transaction: deposit.transactionHash,
    status: deposit.status,
    created_at: deposit.createdAt.toISOString(),
    credited_at: deposit.creditedAt?.toISOString() ?? null,
  };
}

/**
 * POST /proxy/<token>/fund/base {"authorization":{…},"signature":"0x…","salt":"0x…"} – submits
 * a signed deposit and credits the token once the transfer is mined: 201 credited, or 202
 * pending (send the same body again to finish).
 */
export async function fundBase(call: ApiCall<"token">): Promise<Response> {
  const { app, request, principal: record } = call;
  const services = enabledBaseDeposits(app);
  const body = await readValidatedJson(request, submitSchema, call.bodyLimit);
  const authorization = parseTransferAuthorization({
    authorization: body.authorization,
    signature: body.signature,
  });
  if (!authorization) {
    throw badRequest(
      "authorization must be {from, to, value, validAfter, validBefore, nonce} (addresses, decimal strings, a bytes32 nonce) and signature 0x-hex",
    );
  }
  const outcome = await submitBaseDeposit(app.database.db, services, record, {
    authorization,
    salt: body.salt as `0x${string}`,
  });
  const balance = await readTokenBalance(app, record.accountId);
  return jsonResponse(
    {
      ...depositView(outcome.deposit),
      credited_microunits: outcome.type === "credited" ? Number(outcome.deposit.amountMicrounits) : 0,
      usdc_balance: Number(balance.available),
    },
    outcome.type === "credited" ? 201 : 202,
    noStore,
  );
}
