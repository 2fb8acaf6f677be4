import { isAddress } from "@solana/kit";
import { getAddress, isAddress as isEvmAddress } from "viem";
import { badRequest } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import { getAccountBalance } from "../../ledger/accounts";
import { findWalletAccountId } from "../../x402/core/wallet-ledger";
import type { ApiCall } from "../route-definition";

/**
 * GET /proxy/x402/balance/<wallet>: the surplus credit an x402 payer holds. Read-only and
 * keyed by a public address, like the chain itself; spending it needs the wallet's signature.
 */
export async function getWalletBalance({ app, params }: ApiCall<"none">): Promise<Response> {
  let wallet = params.wallet ?? "";
  // Solana addresses are keyed as written; EVM ones in their checksum spelling, as credited.
  if (isEvmAddress(wallet, { strict: false })) wallet = getAddress(wallet);
  else if (!isAddress(wallet)) throw badRequest("payer_wallet is not a valid Solana or EVM address");
  const accountId = await findWalletAccountId(app.database.db, wallet);
  const balance = accountId === undefined ? undefined : await getAccountBalance(app.database.db, accountId);
  return jsonResponse({
    payer_wallet: wallet,
    balance_microunits: Number(balance?.balance ?? 0n),
    held_microunits: Number(balance?.held ?? 0n),
    available_microunits: Number(balance?.available ?? 0n),
  });
}
