import { sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../../lib/db/client";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { officialBaseHeader } from "../../helpers/evm/base-payer";
import { anvilUnavailable, type LocalEvm, startLocalEvm } from "../../helpers/evm/local-evm";
import { reconcileOver, removeLedgerTransaction } from "../../helpers/reconcile";
import { chatBody, startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";

/**
 * Reconciliation covers Base: x402 payments and token deposits on a local anvil chain
 * (FiatToken v2.2) are matched against their transaction receipts and their ledger credits. A
 * receipt the chain does not back and a chain transfer whose ledger credit is gone are each
 * reported to the microunit; the books agree again once they are put back.
 */
const unavailable = await anvilUnavailable();
if (unavailable) console.warn(`skipping the Base reconcile tests: anvil cannot start here (${unavailable})`);

describe.skipIf(unavailable !== undefined)("reconcile on Base (local anvil)", () => {
  let evm: LocalEvm;
  let x402: X402TestGateway;
  let payTo: Address;
  let depositAddress: Address;

  beforeAll(async () => {
    evm = await startLocalEvm();
    payTo = (await evm.fundedAccount()).account.address;
    depositAddress = (await evm.fundedAccount()).account.address;
    const settler = await evm.fundedAccount({ wei: 10n ** 18n });
    x402 = await startX402TestGateway({
      env: {
        X402_BASE_PAY_TO: payTo,
        BASE_DEPOSIT_ADDRESS: depositAddress,
        X402_BASE_NETWORK: evm.network,
        BASE_RPC_URL: evm.rpcUrl,
        X402_BASE_SETTLER_KEY: settler.key,
      },
    });
  }, 120_000);

  afterAll(async () => {
    if (x402) expect(await verifyLedger(x402.gateway.app.database.db)).toEqual([]);
    await x402?.close();
    await evm?.close();
  });

  const db = () => x402.gateway.app.database.db;

  async function payOnBase(): Promise<void> {
    const account = (await evm.fundedAccount({ usdc: 1_000_000n })).account;
    const body = chatBody("reconcile me [fake:tokens=3]");
    const quote = await x402.post("openai", body);
    expect(quote.status).toBe(402);
    const { header } = await officialBaseHeader(account, quote);
    const paid = await x402.post("openai", body, header);
    expect(paid.status).toBe(200);
    await paid.text();
  }

  async function depositOnBase(amount: bigint): Promise<string> {
    const { token } = await x402.gateway.register();
    const account = (await evm.fundedAccount({ usdc: amount })).account;
    const answer = (await (
      await fetch(
        `${x402.gateway.baseUrl}/proxy/${token}/fund/base/typed-data?from=${account.address}&amount_microunits=${amount}`,
      )
    ).json()) as {
      salt: Hex;
      typed_data: {
        domain: { name: string; version: string; chainId: number; verifyingContract: Address };
        types: Record<string, { name: string; type: string }[]>;
        message: Record<"from" | "to" | "value" | "validAfter" | "validBefore" | "nonce", string>;
      };
    };
    const message = answer.typed_data.message;
    const signature = await account.signTypedData({
      domain: answer.typed_data.domain,
      types: answer.typed_data.types,
      primaryType: "TransferWithAuthorization",
      message: {
        from: message.from as Address,
        to: message.to as Address,
        value: BigInt(message.value),
        validAfter: BigInt(message.validAfter),
        validBefore: BigInt(message.validBefore),
        nonce: message.nonce as Hex,
      },
    });
    const response = await fetch(`${x402.gateway.baseUrl}/proxy/${token}/fund/base`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ authorization: message, signature, salt: answer.salt }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return token;
  }

  it("agrees after x402 payments and deposits on Base, and reports a faked or unbooked receipt", async () => {
    await payOnBase();
    await depositOnBase(3_000_000n);
    const clean = await reconcileOver(x402.gateway);
    expect(clean.checked).toContain("base");
    expect(clean.differences).toEqual([]);
    expect(clean.reconciled).toBe(true);

    // A receipt the chain does not back: the payment record claims one microunit more than arrived.
    await db().execute(
      sql`UPDATE x402_payments SET received_amount = received_amount + 1 WHERE network = ${evm.network}`,
    );
    const inflated = await reconcileOver(x402.gateway);
    expect(inflated.reconciled).toBe(false);
    expect(inflated.differences).toEqual([
      expect.objectContaining({
        source: "base",
        microunits: "-1",
        detail: expect.stringContaining("x402 payment"),
      }),
    ]);
    await db().execute(
      sql`UPDATE x402_payments SET received_amount = received_amount - 1 WHERE network = ${evm.network}`,
    );

    // A deposit whose transaction the chain never saw (a faked receipt).
    const [deposit] = await queryRows<{ id: string; hash: string; key: string }>(
      db(),
      sql`SELECT id::text AS id, transaction_hash AS hash, 'base-deposit:' || network || ':' || authorization_key AS key
          FROM base_deposits WHERE status = 'credited'`,
    );
    if (!deposit) throw new Error("no credited deposit");
    await db().execute(
      sql`UPDATE base_deposits SET transaction_hash = ${`0x${"ab".repeat(32)}`} WHERE id = ${BigInt(deposit.id)}`,
    );
    const faked = await reconcileOver(x402.gateway);
    expect(faked.differences).toEqual([
      expect.objectContaining({
        source: "base",
        microunits: "-3000000",
        detail: expect.stringContaining("the chain has no such transaction"),
      }),
    ]);
    await db().execute(
      sql`UPDATE base_deposits SET transaction_hash = ${deposit.hash} WHERE id = ${BigInt(deposit.id)}`,
    );

    // USDC that arrived on-chain with its ledger credit gone: the chain moved 3 USDC the books lack.
    const restore = await removeLedgerTransaction(db(), deposit.key);
    try {
      const unbooked = await reconcileOver(x402.gateway);
      expect(unbooked.differences).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            source: "base",
            microunits: "3000000",
            detail: expect.stringContaining("never credited"),
          }),
        ]),
      );
    } finally {
      await restore();
    }
    expect((await reconcileOver(x402.gateway)).reconciled).toBe(true);
  });
});
