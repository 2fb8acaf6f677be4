import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../../lib/db/client";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { officialBaseHeader } from "../../helpers/evm/base-payer";
import { anvilUnavailable, type LocalEvm, startLocalEvm } from "../../helpers/evm/local-evm";
import { type FakeUpstream, startFakeUpstream } from "../../helpers/fake-upstream";
import { testSharedPostgres } from "../../helpers/services";
import { createTestDatabase, type TestDatabase } from "../../helpers/test-database";
import { chatBody } from "../../helpers/x402-gateway";
import { type GatewayProcess, startGatewayProcess } from "../../helpers/x402-gateway-process";

/**
 * One EIP-3009 authorization settles one quote, ever, across processes: two gateway processes
 * on one Postgres database and one local anvil chain receive the same Base payment at once.
 * PGlite cannot be shared by two processes, so this needs a Postgres server.
 */
const postgres = testSharedPostgres("x402 on Base with two gateway processes").url;
const unavailable = await anvilUnavailable();
if (unavailable) console.warn(`skipping the two-process Base test: anvil cannot start here (${unavailable})`);

describe.skipIf(!postgres || unavailable !== undefined)(
  "x402 on Base with two gateway processes sharing one Postgres database (skipped without TEST_DATABASE_URL or anvil)",
  () => {
    let evm: LocalEvm;
    let upstream: FakeUpstream;
    let database: TestDatabase;
    let handle: DatabaseHandle;
    let gateways: GatewayProcess[] = [];
    let payTo: Address;
    const path = "/proxy/x402/v1/chat/completions";

    beforeAll(async () => {
      [evm, upstream, database] = await Promise.all([
        startLocalEvm(),
        startFakeUpstream("openai", "fake-openai"),
        createTestDatabase(),
      ]);
      handle = await openDatabase({ url: database.url });
      await handle.migrate();
      payTo = (await evm.fundedAccount()).account.address;
      // Each process has its own settler key, as separate replicas would.
      const env = (settlerKey: string) => ({
        DATABASE_URL: database.url ?? "",
        OPENAI_API_KEY: "sk-test-openai",
        OPENAI_BASE_URL: upstream.baseUrl,
        X402_BASE_PAY_TO: payTo,
        X402_BASE_NETWORK: evm.network,
        BASE_RPC_URL: evm.rpcUrl,
        X402_BASE_SETTLER_KEY: settlerKey,
        X402_PAYMENT_RATE_LIMIT_PER_MINUTE: "1000",
      });
      const [first, second] = await Promise.all([
        evm.fundedAccount({ wei: 10n ** 18n }),
        evm.fundedAccount({ wei: 10n ** 18n }),
      ]);
      gateways = [await startGatewayProcess(env(first.key)), await startGatewayProcess(env(second.key))];
    }, 120_000);

    afterAll(async () => {
      await Promise.all(gateways.map((gateway) => gateway.stop()));
      if (handle) {
        expect(await verifyLedger(handle.db)).toEqual([]);
        await handle.close();
      }
      await evm?.close();
      await upstream?.close();
      await database?.drop();
    });

    const post = (url: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });

    it("the same authorization fired at both: transferred once, served once", async () => {
      const [first, second] = gateways;
      if (!first || !second) throw new Error("gateways not started");
      const { account } = await evm.fundedAccount({ usdc: 1_000_000n });
      const body = chatBody("two processes on Base [fake:tokens=2]");
      const quoteResponse = await post(first.url, body);
      expect(quoteResponse.status).toBe(402);
      const { header } = await officialBaseHeader(account, quoteResponse);
      const payToBefore = await evm.usdcBalance(payTo);
      const upstreamBefore = upstream.requests.length;
      const responses = await Promise.all(
        [first, second, first, second].map((gateway) => post(gateway.url, body, header)),
      );
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([200, 400, 400, 400]);
      for (const response of responses.filter((candidate) => candidate.status === 400)) {
        const error = ((await response.json()) as { error: { type: string; message: string } }).error;
        expect(error.message.length).toBeGreaterThan(0);
      }
      expect(upstream.requests.length).toBe(upstreamBefore + 1);
      const moved = (await evm.usdcBalance(payTo)) - payToBefore;
      expect(moved).toBeGreaterThan(0n);
      expect(await evm.usdcBalance(account.address)).toBe(1_000_000n - moved);
    });
  },
);
