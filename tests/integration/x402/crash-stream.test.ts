import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOLANA_DEVNET_CAIP2 } from "../../../lib/chains/solana/constants";
import { type DatabaseHandle, openDatabase, queryRows } from "../../../lib/db/client";
import { accounts, usageRecords } from "../../../lib/db/schema";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { countTokens } from "../../../lib/usage/tokenizer";
import { type FakeUpstream, startFakeUpstream } from "../../helpers/fake-upstream";
import { streamedPieces } from "../../helpers/inference-client";
import { reconcileCommand } from "../../helpers/reconcile";
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
 * An x402 stream cut by kill -9 (issue 18): its payment's cap is a hold row of its own, outside
 * balance leases. The stream journals a running count; the next start bills what was relayed
 * out of that hold, once, and releases the rest to the payer's wallet credit. Postgres: the
 * journal is the shared table, the dead process is found by its advisory lock.
 */
const postgres = testSharedPostgres("x402 streams cut by a crash").url;

describe.skipIf(!postgres)("an x402 stream cut by kill -9", () => {
  let chain: X402Chain;
  let upstream: FakeUpstream;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  const started: GatewayProcess[] = [];
  const path = "/proxy/x402/v1/chat/completions";
  let env: Record<string, string>;

  beforeAll(async () => {
    [chain, upstream, database] = await Promise.all([
      startX402Chain(),
      startFakeUpstream("openai", "fake-openai"),
      createTestDatabase(),
    ]);
    handle = await openDatabase({ url: database.url });
    await handle.migrate();
    env = {
      ...chain.gatewayEnv(),
      DATABASE_URL: database.url ?? "",
      OPENAI_API_KEY: "sk-test-openai",
      OPENAI_BASE_URL: upstream.baseUrl,
    };
  }, 120_000);

  afterAll(async () => {
    await Promise.all(started.map((gateway) => gateway.stop()));
    if (handle) {
      expect(await verifyLedger(handle.db)).toEqual([]);
      await handle.close();
    }
    await chain?.close();
    await upstream?.close();
    await database?.drop();
  });

  async function start(): Promise<GatewayProcess> {
    const gateway = await startGatewayProcess(env);
    started.push(gateway);
    return gateway;
  }

  async function wallet(address: string) {
    const rows = await handle.db
      .select({ id: accounts.id, balance: accounts.balance, held: accounts.held })
      .from(accounts)
      .where(and(eq(accounts.kind, "wallet"), eq(accounts.ref, address)));
    const row = rows[0];
    if (!row) throw new Error("no wallet account");
    return row;
  }

  it("bills what was relayed once, out of the payment's hold, and leaves the rest credited to the payer", async () => {
    const first = await start();
    const payer = await chain.fundedWallet({ usdc: 2_000_000n });
    // 60 tokens, 80 ms apart: about 5 s of content, cut after about 2.5 s.
    const body = chatBody("a long answer [fake:tokens=60] [fake:slow=80]", { max_tokens: 60, stream: true });
    const post = (url: string, headers: Record<string, string> = {}) =>
      fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
    const quoteResponse = await post(first.url);
    expect(quoteResponse.status).toBe(402);
    const quote = decodeQuote(quoteResponse);
    const entry = nativeEntry(quote, "USDC");
    const signature = await payNative({
      rpc: chain.solana.rpc,
      wallet: payer,
      asset: "USDC",
      payTo: entry.pay_to,
      amount: BigInt(entry.amount_microunits),
      usdcMint: chain.solana.usdcMint,
    });
    const response = await post(first.url, {
      "PAYMENT-SIGNATURE": encodePaymentSignature({
        quote_id: quote.quote_id,
        network: SOLANA_DEVNET_CAIP2,
        asset: "USDC",
        payer_wallet: payer.address,
        signature,
      }),
    });
    expect(response.status).toBe(200);
    const receipt = JSON.parse(
      Buffer.from(response.headers.get("payment-response") ?? "", "base64").toString("utf8"),
    ) as { cap_microunits: number; credited_microunits: number };
    const cap = BigInt(receipt.cap_microunits);
    const credited = BigInt(receipt.credited_microunits);
    expect(credited).toBeGreaterThanOrEqual(cap);

    // Read the stream for 2.5 s, counting the content chunks the caller received, then kill -9.
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no stream");
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = Date.now() + 2_500;
    while (Date.now() < readUntil) {
      const next = await reader.read();
      if (next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
    const relayedChunks = [...text.matchAll(/"content":"[^"]+"/g)].length;
    expect(relayedChunks).toBeGreaterThan(10);
    expect(text).not.toContain("[DONE]");
    const during = await wallet(payer.address);
    expect(during.held).toBe(cap);
    await first.kill();
    await reader.read().catch(() => undefined);

    // The next start finds the instance dead, bills its running count, then releases its holds.
    const second = await start();
    const records = await handle.db
      .select({
        requestId: usageRecords.requestId,
        outcome: usageRecords.outcome,
        outputTokens: usageRecords.outputTokens,
        cost: usageRecords.costMicrounits,
      })
      .from(usageRecords)
      .where(eq(usageRecords.accountId, during.id));
    expect(records).toHaveLength(1);
    const billed = records[0];
    if (!billed) throw new Error("not billed");
    expect(billed.outcome).toBe("interrupted");
    // The running count is the tokenizer's, journaled each second: at least what had been
    // relayed a second before the crash (about 12 pieces a second), never more than the caller received.
    const pieces = streamedPieces(text);
    expect(billed.outputTokens).toBeGreaterThan(0);
    expect(billed.outputTokens).toBeLessThanOrEqual(await countTokens(pieces.join("")));
    expect(billed.outputTokens).toBeGreaterThanOrEqual(await countTokens(pieces.slice(0, -20).join("")));
    expect(billed.cost).toBeGreaterThan(0n);
    expect(billed.cost).toBeLessThanOrEqual(cap);

    // The charge came out of the payment; the rest of it is the payer's, free to spend.
    const after = await wallet(payer.address);
    expect(after.held).toBe(0n);
    expect(after.balance).toBe(credited - billed.cost);
    const holdsLeft = await queryRows<{ n: string | number }>(
      handle.db,
      sql`SELECT COUNT(*) AS n FROM holds WHERE account_id = ${during.id}`,
    );
    expect(Number(holdsLeft[0]?.n)).toBe(0);
    const journalLeft = await queryRows<{ n: string | number }>(
      handle.db,
      sql`SELECT COUNT(*) AS n FROM settlement_journal WHERE request_id = ${billed.requestId}`,
    );
    expect(Number(journalLeft[0]?.n)).toBe(0);
    const ledger = await queryRows<{ n: string | number }>(
      handle.db,
      sql`SELECT COUNT(*) AS n FROM ledger_transactions WHERE idempotency_key = ${`inference:${billed.requestId}`}`,
    );
    expect(Number(ledger[0]?.n)).toBe(1);

    // Billed once: another start (and the survivor's own dead-instance pass) changes nothing.
    const third = await start();
    await third.stop();
    expect(await wallet(payer.address)).toEqual(after);
    expect(
      await handle.db.select().from(usageRecords).where(eq(usageRecords.accountId, during.id)),
    ).toHaveLength(1);
    await second.stop();
    // The books against the chain: the payment on chain, its credit, the charge and the release agree.
    const reconciled = await reconcileCommand(env);
    expect(reconciled.report.differences).toEqual([]);
    expect(reconciled.code).toBe(0);
  }, 180_000);

  it("a stream that ends normally leaves no running count in the journal", async () => {
    const gateway = await start();
    const payer = await chain.fundedWallet({ usdc: 2_000_000n });
    const body = chatBody("a finished answer [fake:tokens=20] [fake:slow=100]", {
      max_tokens: 20,
      stream: true,
    });
    const post = (headers: Record<string, string> = {}) =>
      fetch(`${gateway.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
    const quote = decodeQuote(await post());
    const entry = nativeEntry(quote, "USDC");
    const signature = await payNative({
      rpc: chain.solana.rpc,
      wallet: payer,
      asset: "USDC",
      payTo: entry.pay_to,
      amount: BigInt(entry.amount_microunits),
      usdcMint: chain.solana.usdcMint,
    });
    const response = await post({
      "PAYMENT-SIGNATURE": encodePaymentSignature({
        quote_id: quote.quote_id,
        network: SOLANA_DEVNET_CAIP2,
        asset: "USDC",
        payer_wallet: payer.address,
        signature,
      }),
    });
    expect(response.status).toBe(200);
    // About 2 s of content: at least one running count was journaled on the way.
    expect(await response.text()).toContain("[DONE]");
    const account = await wallet(payer.address);
    const records = await handle.db
      .select({ requestId: usageRecords.requestId, outcome: usageRecords.outcome })
      .from(usageRecords)
      .where(eq(usageRecords.accountId, account.id));
    expect(records).toMatchObject([{ outcome: "completed" }]);
    const deadline = Date.now() + 5_000;
    let left = 1;
    while (left > 0 && Date.now() < deadline) {
      const rows = await queryRows<{ n: string | number }>(
        handle.db,
        sql`SELECT COUNT(*) AS n FROM settlement_journal WHERE request_id = ${records[0]?.requestId ?? ""}`,
      );
      left = Number(rows[0]?.n);
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(left).toBe(0);
    expect(account.held).toBe(0n);
    await gateway.stop();
  });
});
