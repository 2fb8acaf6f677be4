import { x402Client, x402HTTPClient } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOLANA_DEVNET_CAIP2 } from "../../../lib/chains/solana/constants";
import { type DatabaseHandle, openDatabase } from "../../../lib/db/client";
import { accounts } from "../../../lib/db/schema";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { type FakeUpstream, startFakeUpstream } from "../../helpers/fake-upstream";
import { testSharedPostgres } from "../../helpers/services";
import { createTestDatabase, type TestDatabase } from "../../helpers/test-database";
import { startX402Chain, type X402Chain } from "../../helpers/x402-chain";
import { chatBody } from "../../helpers/x402-gateway";
import { type GatewayProcess, startGatewayProcess } from "../../helpers/x402-gateway-process";
import {
  decodeQuote,
  encodePaymentSignature,
  nativeEntry,
  payNative,
} from "../../helpers/x402-self-broadcast-client";

/**
 * Two gateway processes on one database: the replay guards must hold across processes,
 * which only the database can promise. PGlite is embedded in one process and cannot be
 * shared, so this needs a Postgres server.
 */
const postgres = testSharedPostgres("x402 with two gateway processes").url;

describe.skipIf(!postgres)("two gateway processes sharing one Postgres database", () => {
  let chain: X402Chain;
  let upstream: FakeUpstream;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let gateways: GatewayProcess[] = [];
  const path = "/proxy/x402/v1/chat/completions";

  beforeAll(async () => {
    [chain, upstream, database] = await Promise.all([
      startX402Chain(),
      startFakeUpstream("openai", "fake-openai"),
      createTestDatabase(),
    ]);
    handle = await openDatabase({ url: database.url });
    // Migrate once up front so the two processes never race on the schema.
    await handle.migrate();
    const env = {
      ...chain.gatewayEnv(),
      DATABASE_URL: database.url ?? "",
      OPENAI_API_KEY: "sk-test-openai",
      OPENAI_BASE_URL: upstream.baseUrl,
    };
    gateways = [await startGatewayProcess(env), await startGatewayProcess(env)];
  }, 120_000);

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    if (handle) {
      expect(await verifyLedger(handle.db)).toEqual([]);
      await handle.close();
    }
    await chain?.close();
    await upstream?.close();
    await database?.drop();
  });

  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });

  async function walletBalance(wallet: string): Promise<bigint> {
    const rows = await handle.db
      .select({ balance: accounts.balance })
      .from(accounts)
      .where(and(eq(accounts.kind, "wallet"), eq(accounts.ref, wallet)));
    return rows[0]?.balance ?? 0n;
  }

  it("the same self-broadcast PAYMENT-SIGNATURE fired at both: exactly one serves", async () => {
    const [first, second] = gateways;
    if (!first || !second) throw new Error("gateways not started");
    const wallet = await chain.fundedWallet({ usdc: 1_000_000n });
    const body = chatBody("two processes [fake:tokens=2]");
    const quoteResponse = await post(first.url, body);
    expect(quoteResponse.status).toBe(402);
    const quote = decodeQuote(quoteResponse);
    const entry = nativeEntry(quote, "USDC");
    const signature = await payNative({
      rpc: chain.solana.rpc,
      wallet,
      asset: "USDC",
      payTo: entry.pay_to,
      amount: BigInt(entry.amount_microunits),
      usdcMint: chain.solana.usdcMint,
    });
    const header = {
      "PAYMENT-SIGNATURE": encodePaymentSignature({
        quote_id: quote.quote_id,
        network: SOLANA_DEVNET_CAIP2,
        asset: "USDC",
        payer_wallet: wallet.address,
        signature,
      }),
    };
    const upstreamBefore = upstream.requests.length;
    const responses = await Promise.all(
      [first, second, first, second].map((gateway) => post(gateway.url, body, header)),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 400, 400, 400]);
    expect(upstream.requests.length).toBe(upstreamBefore + 1);
    const served = responses.find((response) => response.status === 200);
    const receipt = JSON.parse(
      Buffer.from(served?.headers.get("payment-response") ?? "", "base64").toString("utf8"),
    ) as { charged_microunits: number; cap_microunits: number };
    expect(await walletBalance(wallet.address)).toBe(
      BigInt(receipt.cap_microunits - receipt.charged_microunits),
    );
  });

  it("the same standard payload fired at both: broadcast once, served once", async () => {
    const [first, second] = gateways;
    if (!first || !second) throw new Error("gateways not started");
    const wallet = await chain.fundedWallet({ usdc: 1_000_000n, lamports: 0n });
    const body = chatBody("two processes, standard");
    const quoteResponse = await post(second.url, body);
    const client = new x402Client().register(
      SOLANA_DEVNET_CAIP2,
      new ExactSvmScheme(wallet, { rpcUrl: chain.solana.rpcUrl }),
    );
    const http = new x402HTTPClient(client);
    const payload = await client.createPaymentPayload(
      http.getPaymentRequiredResponse((name) => quoteResponse.headers.get(name)),
    );
    const header = http.encodePaymentSignatureHeader(payload);
    const feePayerBefore = chain.solana.getBalance(chain.feePayer.address);
    const upstreamBefore = upstream.requests.length;
    const responses = await Promise.all(
      [first, second, first, second].map((gateway) => post(gateway.url, body, header)),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 400, 400, 400]);
    expect(upstream.requests.length).toBe(upstreamBefore + 1);
    expect(feePayerBefore - chain.solana.getBalance(chain.feePayer.address)).toBe(10_001n);
    expect(await chain.solana.getTokenBalance(wallet.address, chain.solana.usdcMint)).toBe(990_000n);
  });
});
