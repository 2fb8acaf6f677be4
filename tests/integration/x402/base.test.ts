import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { PaymentRequiredV2Schema } from "@x402/core/schemas";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { type Address, encodeFunctionData, type Hex, toHex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eip3009Abi } from "../../../lib/chains/evm/eip3009";
import { SOLANA_DEVNET_CAIP2 } from "../../../lib/chains/solana/constants";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { extractCodeBlocks } from "../../docs/extract-snippets";
import { baseEntry, craftedBaseHeader, officialBaseHeader } from "../../helpers/evm/base-payer";
import { anvilUnavailable, type LocalEvm, startLocalEvm } from "../../helpers/evm/local-evm";
import { verifiedReceipt } from "../../helpers/receipts";
import { chatBody, startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";
import {
  decodeQuote,
  encodePaymentSignature,
  nativeEntry,
  payNative,
} from "../../helpers/x402-self-broadcast-client";

/**
 * x402 on Base against a local anvil chain running Circle's FiatToken v2.2: the official
 * @x402/fetch + @x402/evm client pays, the in-process facilitator submits
 * transferWithAuthorization, and every refusal leaves nothing served and nothing credited.
 */
const repoRoot = path.resolve(import.meta.dirname, "../../..");
const unavailable = await anvilUnavailable();
if (unavailable) console.warn(`skipping the Base x402 tests: anvil cannot start here (${unavailable})`);

describe.skipIf(unavailable !== undefined)("x402 on Base (local anvil + FiatToken v2.2)", () => {
  let evm: LocalEvm;
  let x402: X402TestGateway;
  let payTo: Address;
  let settlerKey: Hex;

  beforeAll(async () => {
    evm = await startLocalEvm();
    const payee = await evm.fundedAccount();
    payTo = payee.account.address;
    const settler = await evm.fundedAccount({ wei: 10n ** 18n });
    settlerKey = settler.key;
    x402 = await startX402TestGateway({ env: baseEnv() });
  }, 120_000);

  afterAll(async () => {
    if (x402) expect(await verifyLedger(x402.gateway.app.database.db)).toEqual([]);
    await x402?.close();
    await evm?.close();
  });

  function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
    return {
      X402_BASE_PAY_TO: payTo,
      X402_BASE_NETWORK: evm.network,
      BASE_RPC_URL: evm.rpcUrl,
      X402_BASE_SETTLER_KEY: settlerKey,
      ...extra,
    };
  }

  const receiptOf = (response: Response) =>
    JSON.parse(
      Buffer.from(response.headers.get("payment-response") ?? "", "base64").toString("utf8"),
    ) as Record<string, unknown>;

  async function payer(usdc = 1_000_000n): Promise<PrivateKeyAccount> {
    return (await evm.fundedAccount({ usdc })).account;
  }

  /** Asserts a refusal moved nothing: no upstream call, no USDC to pay_to, no wallet credit. */
  async function expectNothingMoved(
    response: Response,
    wallet: Address,
    before: { upstream: number; payTo: bigint },
    status = 400,
  ): Promise<string> {
    expect(response.status).toBe(status);
    const message = ((await response.json()) as { error: { message: string } }).error.message;
    expect(x402.upstreamRequests()).toBe(before.upstream);
    expect(await evm.usdcBalance(payTo)).toBe(before.payTo);
    expect((await x402.walletBalance(wallet)).balance).toBe(0n);
    return message;
  }

  const snapshot = async () => ({ upstream: x402.upstreamRequests(), payTo: await evm.usdcBalance(payTo) });

  it("quotes a standard exact USDC entry on Base after the Solana entries; the whole document is v2", async () => {
    const response = await x402.post("openai", chatBody("quote with base"));
    expect(response.status).toBe(402);
    const quote = decodeQuote(response);
    expect(PaymentRequiredV2Schema.safeParse(quote).success).toBe(true);
    const networks = quote.accepts.map((entry) => entry.network);
    expect(networks.at(-1)).toBe(evm.network);
    expect(networks.slice(0, -1).every((network) => network === SOLANA_DEVNET_CAIP2)).toBe(true);
    expect(baseEntry(quote)).toMatchObject({
      scheme: "exact",
      asset: evm.usdc,
      payTo,
      amount: "10000",
      maxAmountRequired: "10000",
      maxTimeoutSeconds: 300,
      extra: { name: "USD Coin", version: "2", quote_id: quote.quote_id },
    });
  });

  it("@x402/fetch with @x402/evm pays a chat request; the surplus is credited and a balance spend uses it", async () => {
    const account = await payer();
    const client = new x402Client().register("eip155:*", new ExactEvmScheme(account));
    // Only the Base entry, so the client cannot pick a Solana one.
    client.registerPolicy((_version, requirements) =>
      requirements.filter((requirement) => requirement.network.startsWith("eip155:")),
    );
    const paidFetch = wrapFetchWithPayment(fetch, client);
    const before = await snapshot();
    const response = await paidFetch(`${x402.gateway.baseUrl}/proxy/x402/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: chatBody("pay on base [fake:tokens=3]"),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { choices: unknown[] }).choices).toHaveLength(1);
    const receipt = receiptOf(response);
    expect(receipt).toMatchObject({
      success: true,
      network: evm.network,
      payer: account.address,
      amount: "10000",
      credited_microunits: 10_000,
      charge_final: true,
    });
    expect(String(receipt.transaction)).toMatch(/^0x[0-9a-f]{64}$/);
    const usage = await verifiedReceipt(x402.gateway.baseUrl, String(receipt.usage_receipt));
    expect(usage.payer).toEqual({ kind: "x402", wallet: account.address, network: evm.network });
    expect(usage.charge).toBe(String(receipt.charged_microunits));
    expect(receipt.max_microunits).toBe(receipt.cap_microunits);
    const onChain = await evm.client.getTransactionReceipt({ hash: receipt.transaction as Hex });
    expect(onChain.status).toBe("success");
    expect(await evm.usdcBalance(payTo)).toBe(before.payTo + 10_000n);
    expect(x402.upstreamRequests()).toBe(before.upstream + 1);
    const surplus = 10_000n - BigInt(receipt.charged_microunits as number);
    expect(surplus).toBeGreaterThan(0n);
    expect((await x402.walletBalance(account.address)).balance).toBe(surplus);
    const shown = await fetch(`${x402.gateway.baseUrl}/proxy/x402/balance/${account.address.toLowerCase()}`);
    expect(await shown.json()).toMatchObject({
      payer_wallet: account.address,
      balance_microunits: Number(surplus),
    });

    // The surplus pays a second request: the balance scheme with an EIP-191 proof.
    const body = chatBody("spend the base surplus [fake:tokens=1]", { max_tokens: 5 });
    const quote = decodeQuote(await x402.post("openai", body));
    const proof = await account.signMessage({ message: `usepod-x402-spend:${quote.quote_id}` });
    const spend = await x402.post("openai", body, {
      "PAYMENT-SIGNATURE": encodePaymentSignature({
        quote_id: quote.quote_id,
        network: evm.network,
        scheme: "balance",
        payer_wallet: account.address,
        proof,
      }),
    });
    expect(spend.status).toBe(200);
    const spent = receiptOf(spend);
    expect(spent).toMatchObject({ scheme: "balance", payer: account.address, transaction: "" });
    expect((await x402.walletBalance(account.address)).balance).toBe(
      surplus - BigInt(spent.charged_microunits as number),
    );
    // A proof by another key does not spend it.
    const other = await payer(0n);
    const quote2 = decodeQuote(await x402.post("openai", body));
    const forged = await x402.post("openai", body, {
      "PAYMENT-SIGNATURE": encodePaymentSignature({
        quote_id: quote2.quote_id,
        scheme: "balance",
        payer_wallet: account.address,
        proof: await other.signMessage({ message: `usepod-x402-spend:${quote2.quote_id}` }),
      }),
    });
    expect(forged.status).toBe(400);
  });

  it("the guide's pay-on-base.ts runs as written and pays", async () => {
    const guide = readFileSync(path.join(repoRoot, "content/docs/using/x402-payments.mdx"), "utf8");
    const block = extractCodeBlocks(guide).find((candidate) =>
      candidate.meta.includes('title="pay-on-base.ts"'),
    );
    if (!block) throw new Error("the guide has no pay-on-base.ts");
    const scratch = path.join(repoRoot, "node_modules/.cache/pod-x402-doc-examples");
    mkdirSync(scratch, { recursive: true });
    const file = path.join(scratch, "pay-on-base.mts");
    writeFileSync(file, block.code);
    const { key, account } = await evm.fundedAccount({ usdc: 1_000_000n });
    const output = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", file],
        {
          env: {
            NODE_ENV: "test",
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: process.env.HOME ?? "/tmp",
            POD_BASE_URL: x402.gateway.baseUrl,
            EVM_PRIVATE_KEY: key,
          },
          timeout: 60_000,
        },
        (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
      );
    });
    expect(output.code, `${output.stdout}\n${output.stderr}`).toBe(0);
    expect(output.stdout).toMatch(/^200 /m);
    const line = output.stdout.split("\n").find((candidate) => candidate.startsWith("{"));
    expect(JSON.parse(line ?? "{}")).toMatchObject({
      success: true,
      network: evm.network,
      payer: account.address,
    });
  });

  it("pays a streamed messages request", async () => {
    const account = await payer();
    const body = JSON.stringify({
      model: "claude-haiku-4-5",
      max_tokens: 40,
      stream: true,
      messages: [{ role: "user", content: "stream on base [fake:tokens=4]" }],
    });
    const quoteResponse = await x402.post("anthropic", body);
    expect(quoteResponse.status).toBe(402);
    const { header } = await officialBaseHeader(account, quoteResponse);
    const response = await x402.post("anthropic", body, header);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text();
    expect(text).toContain("message_stop");
    expect(text).toContain(": PAYMENT-RESPONSE ");
    expect(receiptOf(response)).toMatchObject({
      network: evm.network,
      payer: account.address,
      charge_final: false,
    });
  });

  it("refuses a replayed authorization, sequential and concurrent, and one reused for another quote", async () => {
    const account = await payer();
    const body = chatBody("replay me [fake:tokens=2]");
    const quoteResponse = await x402.post("openai", body);
    const { header, payload } = await officialBaseHeader(account, quoteResponse);
    const concurrent = await Promise.all([1, 2, 3].map(() => x402.post("openai", body, header)));
    expect(concurrent.map((response) => response.status).sort()).toEqual([200, 400, 400]);
    const credited = (await x402.walletBalance(account.address)).balance;
    const before = await snapshot();
    const again = await x402.post("openai", body, header);
    expect(again.status).toBe(400);
    expect(x402.upstreamRequests()).toBe(before.upstream);
    expect((await x402.walletBalance(account.address)).balance).toBe(credited);

    // The same authorization presented for a new quote of another request.
    const otherBody = chatBody("another request");
    const otherQuote = decodeQuote(await x402.post("openai", otherBody));
    const reused = {
      ...payload,
      accepted: { ...payload.accepted, extra: { ...payload.accepted.extra, quote_id: otherQuote.quote_id } },
    };
    const response = await x402.post("openai", otherBody, {
      "PAYMENT-SIGNATURE": encodePaymentSignature(reused),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      "already been used",
    );
    expect(x402.upstreamRequests()).toBe(before.upstream);
    expect(await evm.usdcBalance(payTo)).toBe(before.payTo);
  });

  describe("refuses a bad authorization with nothing served and nothing credited", () => {
    async function attempt(
      overrides: Partial<Parameters<typeof craftedBaseHeader>[2]>,
      accepted: (entry: Record<string, unknown>) => Record<string, unknown> = (entry) => entry,
      tamper?: (signature: Hex) => Hex,
    ): Promise<string> {
      const account = await payer();
      const body = chatBody(`bad authorization ${Math.random()}`);
      const entry = baseEntry(decodeQuote(await x402.post("openai", body)));
      const now = BigInt(Math.floor(Date.now() / 1000));
      const fields = {
        to: payTo,
        value: BigInt(entry.amount),
        validAfter: 0n,
        validBefore: now + 120n,
        nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
        chainId: evm.chainId,
        verifyingContract: evm.usdc,
        name: "USD Coin",
        version: "2",
      };
      const header = await craftedBaseHeader(account, accepted(entry), { ...fields, ...overrides }, tamper);
      const before = await snapshot();
      return expectNothingMoved(await x402.post("openai", body, header), account.address, before);
    }

    it("underpayment", async () => {
      expect(await attempt({ value: 9_999n })).toContain("below the quoted");
    });
    it("wrong to", async () => {
      const stranger = (await evm.fundedAccount()).account.address;
      expect(await attempt({ to: stranger })).toContain("not this quote's payTo");
    });
    it("wrong chain id: signed for another chain, or naming another network", async () => {
      expect(await attempt({ chainId: 1 })).toContain("does not recover");
      expect(await attempt({}, (entry) => ({ ...entry, network: "eip155:1" }))).toContain(
        `payable on ${evm.network}`,
      );
    });
    it("wrong token contract: signed for another, or naming another asset", async () => {
      const other = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
      expect(await attempt({ verifyingContract: other })).toContain("does not recover");
      expect(await attempt({}, (entry) => ({ ...entry, asset: other }))).toContain("is not offered");
    });
    it("expired and not-yet-valid windows", async () => {
      const now = BigInt(Math.floor(Date.now() / 1000));
      expect(await attempt({ validBefore: now - 5n })).toContain("expired");
      expect(await attempt({ validAfter: now + 600n })).toContain("not valid yet");
      expect(await attempt({ validBefore: now + 100_000n })).toContain("outlives");
    });
    it("a bad signature", async () => {
      const flip = (signature: Hex): Hex =>
        `${signature.slice(0, 10)}${signature[10] === "0" ? "1" : "0"}${signature.slice(11)}` as Hex;
      expect(await attempt({}, undefined, flip)).toMatch(/does not recover|signature/);
    });
  });

  it("a transfer that reverts is not served, even when an external facilitator claims success", async () => {
    // A facilitator that lies: it mines a transferWithAuthorization that reverts and reports success.
    const liar = await evm.fundedAccount({ wei: 10n ** 18n });
    const server: Server = createServer((request, response) => {
      let text = "";
      request.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      request.on("end", () => {
        void (async () => {
          const json = (path: string) => {
            if (path.endsWith("/verify")) return { isValid: true };
            return undefined;
          };
          const path = request.url ?? "";
          const verify = json(path);
          if (verify) {
            response.writeHead(200, { "content-type": "application/json" });
            response.end(JSON.stringify(verify));
            return;
          }
          const body = JSON.parse(text) as {
            paymentPayload: { payload: { authorization: Record<string, string> } };
          };
          const authorization = body.paymentPayload.payload.authorization;
          const hash = await evm.client.sendTransaction({
            account: liar.account,
            to: evm.usdc,
            gas: 200_000n,
            data: encodeFunctionData({
              abi: eip3009Abi,
              functionName: "transferWithAuthorization",
              args: [
                authorization.from as Address,
                authorization.to as Address,
                BigInt(authorization.value ?? "0"),
                BigInt(authorization.validAfter ?? "0"),
                BigInt(authorization.validBefore ?? "0"),
                authorization.nonce as Hex,
                `0x${"11".repeat(65)}`,
              ],
            }),
          });
          response.writeHead(200, { "content-type": "application/json" });
          response.end(
            JSON.stringify({
              success: true,
              transaction: hash,
              network: evm.network,
              payer: authorization.from,
            }),
          );
        })();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const external = await startX402TestGateway({
      chain: x402.chain,
      env: baseEnv({ X402_FACILITATOR_URL: `http://127.0.0.1:${port}`, X402_BASE_SETTLER_KEY: "" }),
    });
    try {
      const account = await payer();
      const body = chatBody("reverted transfer");
      const { header } = await officialBaseHeader(account, await external.post("openai", body));
      const upstreamBefore = external.upstreamRequests();
      const payToBefore = await evm.usdcBalance(payTo);
      const response = await external.post("openai", body, header);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain("reverted");
      expect(external.upstreamRequests()).toBe(upstreamBefore);
      expect(await evm.usdcBalance(payTo)).toBe(payToBefore);
      expect((await external.walletBalance(account.address)).balance).toBe(0n);
    } finally {
      await external.close();
      server.close();
    }
  });

  it("an exhausted gas budget refuses Base with a clear error while Solana keeps working", async () => {
    const broke = await startX402TestGateway({
      chain: x402.chain,
      env: baseEnv({ X402_BASE_GAS_DAILY_BUDGET_WEI: "1" }),
    });
    try {
      const account = await payer();
      const body = chatBody("no gas left [fake:tokens=2]");
      const quoteResponse = await broke.post("openai", body);
      const { header } = await officialBaseHeader(account, quoteResponse);
      const upstreamBefore = broke.upstreamRequests();
      const payToBefore = await evm.usdcBalance(payTo);
      const refused = await broke.post("openai", body, header);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
        "gas daily budget is exhausted",
      );
      expect(broke.upstreamRequests()).toBe(upstreamBefore);
      expect(await evm.usdcBalance(payTo)).toBe(payToBefore);
      expect((await broke.walletBalance(account.address)).balance).toBe(0n);

      // The same quote is still payable on Solana.
      const quote = decodeQuote(quoteResponse);
      const wallet = await broke.chain.fundedWallet({ usdc: 1_000_000n });
      const entry = nativeEntry(quote, "USDC");
      const signature = await payNative({
        rpc: broke.chain.solana.rpc,
        wallet,
        asset: "USDC",
        payTo: entry.pay_to,
        amount: BigInt(entry.amount_microunits),
        usdcMint: broke.chain.solana.usdcMint,
      });
      const paid = await broke.post("openai", body, {
        "PAYMENT-SIGNATURE": encodePaymentSignature({
          quote_id: quote.quote_id,
          network: SOLANA_DEVNET_CAIP2,
          asset: "USDC",
          payer_wallet: wallet.address,
          signature,
        }),
      });
      expect(paid.status).toBe(200);
    } finally {
      await broke.close();
    }
  });
});
