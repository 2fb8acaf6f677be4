import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../../lib/db/client";
import { GatewayError } from "../../../lib/errors/gateway-error";
import { getAccountBalance } from "../../../lib/ledger/accounts";
import { creditAndHold } from "../../../lib/x402/core/credit-and-hold";
import { encodeJsonHeader } from "../../../lib/x402/core/header-codec";
import { issueQuote } from "../../../lib/x402/core/issue-quote";
import { readPaymentProof } from "../../../lib/x402/core/payment-header";
import type { PaymentRail, RailSet, VerifiedPayment } from "../../../lib/x402/core/payment-rail";
import { exactEntry } from "../../../lib/x402/core/payment-required";
import { findQuote, type QuoteOption, type StoredQuote } from "../../../lib/x402/core/quote-store";
import { settlePayment } from "../../../lib/x402/core/settle-payment";
import type { Settlement } from "../../../lib/x402/core/settlement";
import { findWalletAccountId, walletAccountId } from "../../../lib/x402/core/wallet-ledger";
import { x402BadRequest } from "../../../lib/x402/core/x402-errors";
import { createTestDatabase, type TestDatabase } from "../../helpers/test-database";

/**
 * A third network family, written against the core alone (no Solana, no EVM): what a new
 * rail folder would hold. The core quotes it, reads its proofs, runs the checks every payment
 * shares, and credits it, with no line of the core changed; and a payment on it cannot get
 * past those checks, whatever its rail says.
 */

const FAMILY = "testchain";
const NETWORK = "testchain:1";
const MECHANISM = "testchain-transfer";

let testDatabase: TestDatabase;
let handle: DatabaseHandle;
/** How many times the toy rail was asked to move money. */
let settles = 0;

/** The toy rail: a proof's `payload.transfer` is the transfer id; ids starting `sent:` already moved. */
function toyRail(): PaymentRail {
  return {
    family: FAMILY,
    async quote(capMicrounits) {
      return [
        {
          mechanism: MECHANISM,
          network: NETWORK,
          asset: "USDC",
          payTo: "vault",
          amount: capMicrounits,
          details: {},
        },
      ];
    },
    async accepts(quote, options, resourceUrl) {
      return options.map((option) =>
        exactEntry(quote, {
          network: option.network,
          payTo: option.payTo,
          asset: "usdc-on-testchain",
          amount: option.amount,
          maxTimeoutSeconds: 60,
          resourceUrl,
          extra: {},
        }),
      );
    },
    async optionFor(quote, proof) {
      const option = quote.options.find((candidate) => candidate.mechanism === MECHANISM);
      if (!option || proof.network !== option.network) throw x402BadRequest("not payable on this chain");
      return option;
    },
    async verify({ quote, option, proof }): Promise<VerifiedPayment> {
      if (proof.type !== "standard") throw x402BadRequest("testchain takes standard payloads");
      const transfer = String(proof.payload.transfer ?? "");
      const settle = () => credit(quote, option, transfer);
      return transfer.startsWith("sent:") ? { type: "landed", settle } : { type: "authorized", settle };
    },
    async verifyWalletProof() {
      return { type: "invalid", message: "no balance spends on testchain" };
    },
    isWallet: (wallet) => wallet.startsWith("tc_"),
    canonicalWallet: (wallet) => wallet,
    reconcile: async () => 0,
  };
}

async function credit(quote: StoredQuote, option: QuoteOption, transfer: string): Promise<Settlement> {
  settles += 1;
  const database = handle.db;
  const walletId = await walletAccountId(database, "tc_payer");
  const outcome = await creditAndHold(database, {
    quote,
    network: option.network,
    claim: {
      type: "insert",
      input: {
        network: option.network,
        signature: transfer,
        quoteId: quote.id,
        scheme: "native",
        asset: "USDC",
        payerWallet: "tc_payer",
      },
    },
    signature: transfer,
    asset: "USDC",
    walletAccountId: walletId,
    receivedAmount: option.amount,
    creditedMicrounits: option.amount,
    holdTtlSeconds: 60,
    metadata: { transfer },
  });
  if (outcome.type !== "held")
    throw x402BadRequest(`testchain payment ${transfer} credited, not held (${outcome.type})`);
  return {
    scheme: "standard",
    quote,
    asset: "USDC",
    network: option.network,
    payerWallet: "tc_payer",
    transaction: transfer,
    receivedAmount: option.amount,
    creditedMicrounits: option.amount,
    walletAccountId: walletId,
    holdId: outcome.holdId,
    availableAfter: outcome.availableAfter,
  };
}

const registered: RailSet["registered"] = [
  { family: "solana", label: "Solana" },
  { family: "eip155", label: "Base" },
  { family: FAMILY, label: "Testchain" },
];

async function newQuote(ttlSeconds = 300): Promise<StoredQuote> {
  const document = await issueQuote(
    handle.db,
    [toyRail()],
    {
      method: "POST",
      path: "/proxy/x402/v1/chat/completions",
      bodyHash: "h",
      model: "m",
      worstCaseMicrounits: 0n,
    },
    { ttlSeconds, resourceUrl: "https://gateway.test/proxy/x402/v1/chat/completions" },
  );
  const quote = await findQuote(handle.db, document.quote_id);
  if (!quote) throw new Error("the quote was not stored");
  return quote;
}

function proofOf(quote: StoredQuote, transfer: string, network = NETWORK) {
  const header = encodeJsonHeader({
    x402Version: 2,
    accepted: { scheme: "exact", network, asset: "usdc-on-testchain", extra: { quote_id: quote.id } },
    payload: { transfer },
  });
  const proof = readPaymentProof(new Headers({ "payment-signature": header }), registered);
  if (!proof) throw new Error("no proof read");
  return proof;
}

async function pay(quote: StoredQuote, transfer: string, unservable?: GatewayError): Promise<Settlement> {
  const fresh = await findQuote(handle.db, quote.id);
  if (!fresh) throw new Error("quote gone");
  return settlePayment(
    { database: handle.db, holdTtlSeconds: 60, quote: fresh, unservable: () => unservable },
    { configured: [toyRail()], registered },
    proofOf(fresh, transfer),
  );
}

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  handle = await openDatabase({ url: testDatabase.url, dataDir: testDatabase.dataDir });
  await handle.migrate();
});
afterAll(async () => {
  await handle?.close();
  await testDatabase?.drop();
});

describe("a third network family, on the core alone", () => {
  it("is quoted, floored and offered like the others", async () => {
    const quote = await newQuote();
    expect(quote.capMicrounits).toBe(1n);
    expect(quote.options).toMatchObject([
      { mechanism: MECHANISM, network: NETWORK, amount: 1n, position: 0 },
    ]);
  });

  it("has its proofs read, and a family nobody registered named in the registry's words", async () => {
    const quote = await newQuote();
    expect(proofOf(quote, "t-1")).toMatchObject({ type: "standard", network: NETWORK, quoteId: quote.id });
    expect(() => proofOf(quote, "t-1", "cosmos:cosmoshub-4")).toThrow(
      "only Solana, Base, and Testchain x402 payments are supported",
    );
  });

  it("moves nothing for an expired quote, a settled quote or a request no source can serve", async () => {
    const before = settles;
    const expired = await newQuote(-1);
    await expect(pay(expired, "t-expired")).rejects.toThrow("x402 quote has expired");
    const unservable = await newQuote();
    const noProvider = new GatewayError(
      "no_provider_at_price",
      "No provider can serve this request any more",
    );
    await expect(pay(unservable, "t-unservable", noProvider)).rejects.toBe(noProvider);
    expect(settles).toBe(before);

    const quote = await newQuote();
    const settled = await pay(quote, "t-first");
    expect(settled).toMatchObject({ transaction: "t-first", creditedMicrounits: 1n });
    expect(settles).toBe(before + 1);
    await expect(pay(quote, "t-second")).rejects.toThrow("x402 quote has already been settled");
    expect(settles).toBe(before + 1);
    const wallet = await findWalletAccountId(handle.db, "tc_payer");
    if (wallet === undefined) throw new Error("no wallet");
    expect(await getAccountBalance(handle.db, wallet)).toMatchObject({ balance: 1n, held: 1n });
  });

  it("still credits a payment whose value already moved, even for a settled quote", async () => {
    const quote = await newQuote();
    await pay(quote, "t-pays-first");
    const before = settles;
    // The transfer left the payer before the quote was taken: the rail, not the core, decides.
    await expect(pay(quote, "sent:t-late")).rejects.toThrow("credited, not held (quote_taken)");
    expect(settles).toBe(before + 1);
  });
});
