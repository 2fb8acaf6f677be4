import type { HostAttestation, UsageReceipt } from "@pod-gateway/contracts/usage-receipt";
import type { TokenPrice, Usage } from "../pricing/cost";
import type { ReceiptIssuer } from "./receipt-issuer";
import { signReceipt } from "./sign-receipt";
import { wireCounts, wirePayer } from "./wire-usage";

/** What the settlement of one request knows, for its receipt. */
export interface ReceiptFacts {
  requestId: string;
  accountId: bigint;
  /** An x402 payer; a prepaid request names its account. */
  x402Payer?: { wallet: string; network: string } | undefined;
  model: string;
  route: UsageReceipt["source"]["route"];
  providerId: string;
  price: TokenPrice;
  usage: Usage;
  countedBy: UsageReceipt["usage"]["counted_by"];
  bounded: boolean;
  charged: bigint;
  hostShare: bigint;
  outcome: UsageReceipt["outcome"];
  requestSha256: string;
  responseSha256: string;
  host?: HostAttestation | undefined;
}

function receiptOf(issuer: ReceiptIssuer, facts: ReceiptFacts): UsageReceipt {
  return {
    v: 1,
    iss: issuer.name,
    request_id: facts.requestId,
    iat: Math.floor(Date.now() / 1000),
    payer: wirePayer(facts.accountId, facts.x402Payer),
    model: facts.model,
    source: { route: facts.route, provider_id: facts.providerId },
    usage: { ...wireCounts(facts.usage, facts.countedBy), bounded: facts.bounded },
    prices: {
      input_per_1m: facts.price.inputPer1m.toString(),
      output_per_1m: facts.price.outputPer1m.toString(),
      cache_read_per_1m: facts.price.cacheReadPer1m.toString(),
      cache_write_per_1m: facts.price.cacheWritePer1m.toString(),
    },
    charge: facts.charged.toString(),
    host_share: facts.hostShare.toString(),
    outcome: facts.outcome,
    hashes: { request_sha256: facts.requestSha256, response_sha256: facts.responseSha256 },
    ...(facts.host ? { host: facts.host } : {}),
  };
}

/**
 * Where a receipt may be stored other than on its own: its settlement's batch (the ledger's
 * `ReceiptSlot`). True when it takes the receipt; `storeElsewhere` is for when it cannot after all.
 */
export interface ReceiptPlace {
  offer(jws: string, storeElsewhere: (jws: string) => void): boolean;
}

/**
 * Signs the request's receipt and queues it to be stored (by its settlement's batch, when that
 * is still to be written and takes it); resolves to the compact JWS.
 */
export async function issueReceipt(
  issuer: ReceiptIssuer,
  facts: ReceiptFacts,
  place?: ReceiptPlace,
): Promise<string> {
  const jws = await signReceipt(issuer.signer, receiptOf(issuer, facts));
  const storeAlone = (signed: string) =>
    issuer.store.add({
      requestId: facts.requestId,
      accountId: facts.accountId,
      route: facts.route,
      providerId: facts.providerId,
      jws: signed,
    });
  if (!place?.offer(jws, storeAlone)) storeAlone(jws);
  return jws;
}
