import { decodeJsonHeader } from "./header-codec";
import { type ChainPaymentProof, networkFamily, type RailSet } from "./payment-rail";
import { unsupportedNetwork, x402BadRequest, x402Messages } from "./x402-errors";

/**
 * The three dialects a PAYMENT-SIGNATURE can speak, told apart by shape:
 * - standard x402 v2 (`x402Version` + `accepted` + `payload`): verified and settled by the
 *   rail of `accepted.network`;
 * - `scheme: "balance"`: a spend from the wallet's surplus credit, proven by a signature;
 * - anything with `quote_id` + `signature`: a transfer the payer broadcast itself.
 * Which chain a proof is for is the rail's business; here only the shape is checked, and that
 * a network it names is of a registered family.
 */
export type PaymentProof =
  | ChainPaymentProof
  | {
      type: "balance";
      quoteId: string;
      network: string | undefined;
      payerWallet: string | undefined;
      proof: string | undefined;
    };

type Registered = RailSet["registered"];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function isRegistered(network: string, registered: Registered): boolean {
  const family = networkFamily(network);
  return registered.some((candidate) => candidate.family === family);
}

/** Reads PAYMENT-SIGNATURE (or X-PAYMENT); undefined when the request carries neither. */
export function readPaymentProof(headers: Headers, registered: Registered): PaymentProof | undefined {
  const raw = headers.get("payment-signature") ?? headers.get("x-payment");
  if (raw === null || raw.trim() === "") return undefined;
  const decoded = decodeJsonHeader(raw);
  if (!isRecord(decoded)) throw x402BadRequest(x402Messages.invalidHeader);
  return parsePaymentProof(decoded, registered);
}

function parsePaymentProof(decoded: Record<string, unknown>, registered: Registered): PaymentProof {
  if ("x402Version" in decoded && "accepted" in decoded) return parseStandard(decoded, registered);
  const quoteId = text(decoded, "quote_id");
  if (text(decoded, "scheme") === "balance") {
    if (!quoteId) throw x402BadRequest(x402Messages.missingQuoteId);
    return {
      type: "balance",
      quoteId,
      network: text(decoded, "network"),
      payerWallet: text(decoded, "payer_wallet"),
      // The reference service reads the top-level `proof`; `payload.proof` (as its hint words
      // it) is taken too, so clients written from either text work.
      proof:
        text(decoded, "proof") ?? (isRecord(decoded.payload) ? text(decoded.payload, "proof") : undefined),
    };
  }
  if (!quoteId) throw x402BadRequest(x402Messages.missingQuoteId);
  const signature = text(decoded, "signature");
  if (!signature) throw x402BadRequest(x402Messages.missingSignature);
  const network = text(decoded, "network");
  if (network !== undefined && !isRegistered(network, registered)) throw unsupportedNetwork(registered);
  const payerWallet = text(decoded, "payer_wallet");
  if (!payerWallet) throw x402BadRequest("PAYMENT-SIGNATURE is missing payer_wallet");
  return {
    type: "native",
    quoteId,
    // The reference service's self-broadcast clients may leave the network out.
    network: network ?? "",
    asset: (text(decoded, "asset") ?? "").toUpperCase(),
    payerWallet,
    signature,
    proof: text(decoded, "proof"),
  };
}

function parseStandard(decoded: Record<string, unknown>, registered: Registered): PaymentProof {
  const accepted = decoded.accepted;
  const payload = decoded.payload;
  if (decoded.x402Version !== 2) throw x402BadRequest("only x402Version 2 payment payloads are supported");
  if (!isRecord(accepted) || !isRecord(payload)) throw x402BadRequest(x402Messages.invalidHeader);
  const network = text(accepted, "network");
  const scheme = text(accepted, "scheme");
  const asset = text(accepted, "asset");
  if (!network || !isRegistered(network, registered)) throw unsupportedNetwork(registered);
  if (scheme !== "exact") throw x402BadRequest("only the x402 exact scheme is supported");
  if (!asset) throw x402BadRequest("x402 payment payload must carry accepted.asset");
  const extra = isRecord(accepted.extra) ? accepted.extra : {};
  return {
    type: "standard",
    quoteId: text(extra, "quote_id") ?? text(accepted, "quote_id"),
    network,
    asset,
    payload,
    raw: decoded,
  };
}
