import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { type Address, erc20Abi, getAddress, type Hex, toHex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eip3009Abi } from "../../../lib/chains/evm/eip3009";
import { baseDeposits } from "../../../lib/db/schema";
import { depositNonce } from "../../../lib/deposits/evm/base-deposit-nonce";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { findToken } from "../../../lib/tokens/find-token";
import { extractCodeBlocks } from "../../docs/extract-snippets";
import { anvilUnavailable, type LocalEvm, startLocalEvm } from "../../helpers/evm/local-evm";
import { startTestGateway, type TestGateway, testAdminToken } from "../../helpers/gateway";

/**
 * USDC deposits on Base into a prepaid token, on a local anvil chain running Circle's
 * FiatToken v2.2: the wallet signs the EIP-3009 authorization the gateway hands out, the
 * gateway submits it with its settler and credits the token once; every refusal credits
 * nothing and moves no USDC.
 */
const repoRoot = path.resolve(import.meta.dirname, "../../..");
const unavailable = await anvilUnavailable();
if (unavailable) console.warn(`skipping the Base deposit tests: anvil cannot start here (${unavailable})`);

interface TypedDataAnswer {
  network: string;
  chain_id: number;
  usdc: string;
  deposit_address: string;
  deposit_code: string;
  amount_microunits: number;
  salt: Hex;
  typed_data: {
    domain: { name: string; version: string; chainId: number; verifyingContract: Address };
    types: Record<string, { name: string; type: string }[]>;
    primaryType: "TransferWithAuthorization";
    message: Record<"from" | "to" | "value" | "validAfter" | "validBefore" | "nonce", string>;
  };
}

interface SignedDeposit {
  authorization: Record<string, string>;
  signature: Hex;
  salt: Hex;
}

describe.skipIf(unavailable !== undefined)("USDC deposits on Base (local anvil + FiatToken v2.2)", () => {
  let evm: LocalEvm;
  let gateway: TestGateway;
  let depositAddress: Address;
  let settlerKey: Hex;

  beforeAll(async () => {
    evm = await startLocalEvm();
    depositAddress = (await evm.fundedAccount()).account.address;
    settlerKey = (await evm.fundedAccount({ wei: 10n ** 18n })).key;
    gateway = await startTestGateway({ env: depositEnv() });
  }, 120_000);

  afterAll(async () => {
    if (gateway) expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
    await gateway?.close();
    await evm?.close();
  });

  function depositEnv(extra: Record<string, string> = {}): Record<string, string> {
    return {
      BASE_DEPOSIT_ADDRESS: depositAddress,
      X402_BASE_NETWORK: evm.network,
      BASE_RPC_URL: evm.rpcUrl,
      X402_BASE_SETTLER_KEY: settlerKey,
      ...extra,
    };
  }

  async function typedData(
    token: string,
    from: Address,
    amount: bigint,
    base = gateway.baseUrl,
  ): Promise<TypedDataAnswer> {
    const response = await fetch(
      `${base}/proxy/${token}/fund/base/typed-data?from=${from}&amount_microunits=${amount}`,
    );
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as TypedDataAnswer;
  }

  /** Signs what the gateway handed out, optionally changed first (the tampering cases). */
  async function signDeposit(
    token: string,
    account: PrivateKeyAccount,
    amount: bigint,
    change: Partial<Record<"to" | "validBefore" | "nonce", string>> & { chainId?: number } = {},
    base = gateway.baseUrl,
  ): Promise<SignedDeposit> {
    const answer = await typedData(token, account.address, amount, base);
    const { chainId, ...fields } = change;
    const message = { ...answer.typed_data.message, ...fields };
    const signature = await account.signTypedData({
      domain: { ...answer.typed_data.domain, chainId: chainId ?? answer.typed_data.domain.chainId },
      types: answer.typed_data.types,
      primaryType: answer.typed_data.primaryType,
      message: {
        from: message.from,
        to: message.to,
        value: BigInt(message.value),
        validAfter: BigInt(message.validAfter),
        validBefore: BigInt(message.validBefore),
        nonce: message.nonce,
      },
    });
    return { authorization: message, signature, salt: answer.salt };
  }

  const submit = (token: string, body: unknown, base = gateway.baseUrl) =>
    fetch(`${base}/proxy/${token}/fund/base`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  async function errorOf(response: Response): Promise<{ code: string; message: string; reason: unknown }> {
    const body = (await response.json()) as {
      error: { code: string; message: string; details?: { reason?: unknown } };
    };
    return { code: body.error.code, message: body.error.message, reason: body.error.details?.reason };
  }

  async function payer(usdc = 10_000_000n): Promise<PrivateKeyAccount> {
    return (await evm.fundedAccount({ usdc })).account;
  }

  /** A refusal: the status and reason, and nothing credited or moved. */
  async function expectRefused(
    response: Response,
    token: string,
    status: number,
    reason: string,
  ): Promise<string> {
    const before = await evm.usdcBalance(depositAddress);
    const error = await errorOf(response);
    expect({ status: response.status, reason: error.reason }, error.message).toEqual({ status, reason });
    expect((await gateway.balanceOf(token)).balance).toBe(0n);
    expect(await evm.usdcBalance(depositAddress)).toBe(before);
    return error.message;
  }

  it("hands out typed data whose nonce commits to the token's deposit_code", async () => {
    const { token, depositCode } = await gateway.register();
    const account = await payer();
    const answer = await typedData(token, account.address, 2_000_000n);
    expect(answer).toMatchObject({
      network: evm.network,
      chain_id: evm.chainId,
      usdc: evm.usdc,
      deposit_address: depositAddress,
      deposit_code: depositCode,
      amount_microunits: 2_000_000,
      typed_data: {
        domain: { name: "USD Coin", version: "2", chainId: evm.chainId, verifyingContract: evm.usdc },
        primaryType: "TransferWithAuthorization",
        message: { from: account.address, to: depositAddress, value: "2000000", validAfter: "0" },
      },
    });
    expect(answer.salt).toMatch(/^0x[0-9a-f]{64}$/);
    expect(answer.typed_data.message.nonce).toBe(depositNonce(depositCode, answer.salt));
    const validBefore = Number(answer.typed_data.message.validBefore);
    expect(validBefore - Date.now() / 1000).toBeGreaterThan(600);
    const options = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/funding`)).json()) as {
      base: Record<string, unknown>;
    };
    expect(options.base).toEqual({
      enabled: true,
      reason: null,
      network: evm.network,
      chain_id: evm.chainId,
      usdc: evm.usdc,
      usdc_decimals: 6,
      deposit_address: depositAddress,
      min_microunits: 1_000_000,
    });
  });

  it("a signed deposit is submitted, mined and credited once; sending it again credits nothing", async () => {
    const { token } = await gateway.register();
    const account = await payer();
    const before = await evm.usdcBalance(depositAddress);
    const signed = await signDeposit(token, account, 5_000_000n);
    const response = await submit(token, signed);
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({
      status: "credited",
      network: evm.network,
      payer: account.address,
      amount_microunits: 5_000_000,
      credited_microunits: 5_000_000,
      usdc_balance: 5_000_000,
    });
    const receipt = await evm.client.getTransactionReceipt({ hash: body.transaction as Hex });
    expect(receipt.status).toBe("success");
    expect(await evm.usdcBalance(depositAddress)).toBe(before + 5_000_000n);
    expect(await evm.usdcBalance(account.address)).toBe(5_000_000n);
    expect((await gateway.balanceOf(token)).balance).toBe(5_000_000n);

    const again = await submit(token, signed);
    expect(again.status).toBe(409);
    expect((await errorOf(again)).reason).toBe("already_credited");
    expect((await gateway.balanceOf(token)).balance).toBe(5_000_000n);
    expect(await evm.usdcBalance(depositAddress)).toBe(before + 5_000_000n);

    const history = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/funding/history`)).json()) as {
      base_deposits: Record<string, unknown>[];
    };
    expect(history.base_deposits).toEqual([
      expect.objectContaining({
        network: evm.network,
        payer: account.address,
        amount_microunits: 5_000_000,
        status: "credited",
        transaction: body.transaction,
      }),
    ]);

    // The token's activity shows the deposit.
    const activity = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/transactions`)).json()) as {
      data?: { kind?: string }[];
    };
    expect(JSON.stringify(activity)).toContain("base_deposit");
  });

  it("the funding guide's deposit-on-base.ts runs as written and credits the token", async () => {
    const guide = readFileSync(path.join(repoRoot, "content/docs/using/funding.mdx"), "utf8");
    const block = extractCodeBlocks(guide).find((candidate) =>
      candidate.meta.includes('title="deposit-on-base.ts"'),
    );
    if (!block) throw new Error("the funding guide has no deposit-on-base.ts");
    const scratch = path.join(repoRoot, "node_modules/.cache/pod-funding-doc-examples");
    mkdirSync(scratch, { recursive: true });
    const file = path.join(scratch, "deposit-on-base.mts");
    writeFileSync(file, block.code);
    const { token } = await gateway.register();
    const { key } = await evm.fundedAccount({ usdc: 7_000_000n });
    const output = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", file],
        {
          env: {
            NODE_ENV: "test",
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: process.env.HOME ?? "/tmp",
            POD_BASE_URL: gateway.baseUrl,
            POD_TOKEN: token,
            EVM_PRIVATE_KEY: key,
          },
          timeout: 60_000,
        },
        (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
      );
    });
    expect(output.code, `${output.stdout}\n${output.stderr}`).toBe(0);
    expect(output.stdout).toMatch(/^201 /m);
    expect(JSON.parse(output.stdout.slice(output.stdout.indexOf("{")))).toMatchObject({
      status: "credited",
      credited_microunits: 5_000_000,
    });
    expect((await gateway.balanceOf(token)).balance).toBe(5_000_000n);
  });

  it("two concurrent submissions of one authorization credit it once", async () => {
    const { token } = await gateway.register();
    const account = await payer();
    const before = await evm.usdcBalance(depositAddress);
    const signed = await signDeposit(token, account, 3_000_000n);
    const responses = await Promise.all([
      submit(token, signed),
      submit(token, signed),
      submit(token, signed),
    ]);
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 409, 409]);
    for (const response of responses.filter((candidate) => candidate.status === 409)) {
      expect(["in_progress", "already_credited"]).toContain((await errorOf(response)).reason);
    }
    expect((await gateway.balanceOf(token)).balance).toBe(3_000_000n);
    expect(await evm.usdcBalance(depositAddress)).toBe(before + 3_000_000n);
    const rows = await gateway.app.database.db
      .select()
      .from(baseDeposits)
      .where(eq(baseDeposits.payer, account.address));
    expect(rows.map((row) => row.status)).toEqual(["credited"]);
  });

  /** Sends the signed deposit on-chain directly, as anyone holding it could. */
  async function submitOnChain(signed: SignedDeposit): Promise<Hex> {
    const sender = await evm.fundedAccount({ wei: 10n ** 17n });
    const { authorization } = signed;
    const hash = await evm.client.writeContract({
      account: sender.account,
      address: evm.usdc,
      abi: eip3009Abi,
      functionName: "transferWithAuthorization",
      args: [
        getAddress(authorization.from ?? ""),
        getAddress(authorization.to ?? ""),
        BigInt(authorization.value ?? 0),
        BigInt(authorization.validAfter ?? 0),
        BigInt(authorization.validBefore ?? 0),
        authorization.nonce as Hex,
        signed.signature,
      ],
    });
    expect((await evm.client.waitForTransactionReceipt({ hash })).status).toBe("success");
    return hash;
  }

  it("an authorization someone else submitted first is credited once, from that transaction", async () => {
    const { token } = await gateway.register();
    const account = await payer();
    const before = await evm.usdcBalance(depositAddress);
    const signed = await signDeposit(token, account, 4_000_000n);
    const frontRun = await submitOnChain(signed);
    const response = await submit(token, signed);
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ status: "credited", transaction: frontRun, credited_microunits: 4_000_000 });
    expect((await gateway.balanceOf(token)).balance).toBe(4_000_000n);
    expect(await evm.usdcBalance(depositAddress)).toBe(before + 4_000_000n);
    const again = await submit(token, signed);
    expect(again.status).toBe(409);
    expect((await errorOf(again)).reason).toBe("already_credited");
    expect((await gateway.balanceOf(token)).balance).toBe(4_000_000n);
  });

  it("a stale claim left by a crashed submitter is settled from the chain on the next submission", async () => {
    const database = gateway.app.database.db;
    const leaveStaleClaim = async (token: string, signed: SignedDeposit) => {
      const record = await findToken(database, token);
      if (!record) throw new Error("no token");
      await database.insert(baseDeposits).values({
        network: evm.network,
        authorizationKey:
          `${evm.usdc}:${signed.authorization.from}:${signed.authorization.nonce}`.toLowerCase(),
        tokenId: record.id,
        accountId: record.accountId,
        payer: getAddress(signed.authorization.from ?? ""),
        amountMicrounits: BigInt(signed.authorization.value ?? 0),
        nonce: (signed.authorization.nonce ?? "").toLowerCase(),
        salt: signed.salt,
        status: "pending",
        updatedAt: new Date(Date.now() - 10 * 60_000),
      });
    };
    // Never sent: the claim is released and the deposit submitted now.
    const unsent = await gateway.register();
    const signedUnsent = await signDeposit(unsent.token, await payer(), 1_000_000n);
    await leaveStaleClaim(unsent.token, signedUnsent);
    const first = await submit(unsent.token, signedUnsent);
    expect(first.status, await first.clone().text()).toBe(201);
    expect((await gateway.balanceOf(unsent.token)).balance).toBe(1_000_000n);
    // Sent before the crash: the claim adopts the transaction that used the authorization.
    const sent = await gateway.register();
    const signedSent = await signDeposit(sent.token, await payer(), 2_000_000n);
    await leaveStaleClaim(sent.token, signedSent);
    const hash = await submitOnChain(signedSent);
    const second = await submit(sent.token, signedSent);
    expect(second.status, await second.clone().text()).toBe(201);
    expect(((await second.json()) as { transaction: string }).transaction).toBe(hash);
    expect((await gateway.balanceOf(sent.token)).balance).toBe(2_000_000n);
  });

  it("refuses a nonce that does not commit to this token's deposit_code", async () => {
    const { token } = await gateway.register();
    const other = await gateway.register();
    const account = await payer();
    const random = await signDeposit(token, account, 1_000_000n, {
      nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
    });
    await expectRefused(await submit(token, random), token, 400, "nonce_not_committed");
    // Made for one token, sent by another: the nonce names the first token's code.
    const forOther = await signDeposit(other.token, account, 1_000_000n);
    await expectRefused(await submit(token, forOther), token, 400, "nonce_not_committed");
    expect((await gateway.balanceOf(other.token)).balance).toBe(0n);
  });

  it("refuses an authorization to another recipient, and a signature for another chain", async () => {
    const { token } = await gateway.register();
    const account = await payer();
    const elsewhere = (await evm.fundedAccount()).account.address;
    const wrongTo = await signDeposit(token, account, 1_000_000n, { to: elsewhere });
    const message = await expectRefused(await submit(token, wrongTo), token, 400, "recipient_mismatch");
    expect(message).toContain(depositAddress);
    expect(await evm.usdcBalance(elsewhere)).toBe(0n);
    const wrongChain = await signDeposit(token, account, 1_000_000n, { chainId: 84532 });
    await expectRefused(await submit(token, wrongChain), token, 400, "invalid_signature");
  });

  it("refuses an expired window", async () => {
    const { token } = await gateway.register();
    const account = await payer();
    const expired = await signDeposit(token, account, 1_000_000n, {
      validBefore: String(Math.floor(Date.now() / 1000) - 1),
    });
    await expectRefused(await submit(token, expired), token, 400, "valid_before");
    expect(await evm.usdcBalance(account.address)).toBe(10_000_000n);
  });

  it("a payer without the USDC is refused before anything is sent; after a top-up the same signature credits", async () => {
    const { token } = await gateway.register();
    const account = await payer(500_000n);
    const signed = await signDeposit(token, account, 1_000_000n);
    const message = await expectRefused(await submit(token, signed), token, 400, "insufficient_funds");
    expect(message).toContain("exceeds balance");
    const rows = await gateway.app.database.db
      .select()
      .from(baseDeposits)
      .where(eq(baseDeposits.payer, account.address));
    expect(rows).toEqual([]);
    await evm.mintUsdc(account.address, 500_000n);
    const retried = await submit(token, signed);
    expect(retried.status).toBe(201);
    expect((await gateway.balanceOf(token)).balance).toBe(1_000_000n);
  });

  it("a transfer that reverts on-chain credits nothing and fails the deposit", async () => {
    const { token } = await gateway.register();
    const { account } = await evm.fundedAccount({ usdc: 2_000_000n, wei: 10n ** 17n });
    const signed = await signDeposit(token, account, 2_000_000n);
    await evm.client.setAutomine(false);
    try {
      const pending = submit(token, signed);
      // Wait until the gateway's transaction is in the pool, then let the payer spend the
      // USDC first in the same block, so the deposit's transfer reverts.
      const deadline = Date.now() + 20_000;
      for (;;) {
        const [row] = await gateway.app.database.db
          .select()
          .from(baseDeposits)
          .where(eq(baseDeposits.payer, account.address));
        if (row?.transactionHash) break;
        if (Date.now() > deadline) throw new Error("the deposit was never submitted");
        await new Promise((wait) => setTimeout(wait, 50));
      }
      const elsewhere = (await evm.fundedAccount()).account.address;
      await evm.client.writeContract({
        account,
        address: evm.usdc,
        abi: erc20Abi,
        functionName: "transfer",
        args: [elsewhere, 2_000_000n],
        maxPriorityFeePerGas: 50_000_000_000n,
        maxFeePerGas: 100_000_000_000n,
        gas: 100_000n,
      });
      await evm.client.mine({ blocks: 1 });
      const response = await pending;
      await expectRefused(response, token, 400, "transfer_failed");
    } finally {
      await evm.client.setAutomine(true);
    }
    const [row] = await gateway.app.database.db
      .select()
      .from(baseDeposits)
      .where(eq(baseDeposits.payer, getAddress(account.address)));
    expect(row?.status).toBe("failed");
    const again = await submit(token, signed);
    expect(again.status).toBe(409);
    expect((await errorOf(again)).reason).toBe("transfer_failed");
    expect((await gateway.balanceOf(token)).balance).toBe(0n);
  });

  it("an unknown token is refused, and nothing is submitted for it", async () => {
    const { token } = await gateway.register();
    const account = await payer();
    const signed = await signDeposit(token, account, 1_000_000n);
    const response = await submit("00000000-0000-4000-8000-000000000000", signed);
    expect(response.status).toBe(401);
    expect((await errorOf(response)).code).toBe("unauthorized");
    expect(await evm.usdcBalance(account.address)).toBe(10_000_000n);
  });

  it("an exhausted gas budget refuses the deposit with a clear error; deposits off answer 503", async () => {
    const starved = await startTestGateway({ env: depositEnv({ X402_BASE_GAS_DAILY_BUDGET_WEI: "1" }) });
    const off = await startTestGateway();
    try {
      const { token } = await starved.register();
      const account = await payer();
      const signed = await signDeposit(token, account, 1_000_000n, {}, starved.baseUrl);
      const response = await submit(token, signed, starved.baseUrl);
      expect(response.status).toBe(503);
      const error = await errorOf(response);
      expect(error.reason).toBe("gas_budget_exhausted");
      expect(error.message).toContain("gas budget");
      expect((await starved.balanceOf(token)).balance).toBe(0n);
      expect(await evm.usdcBalance(account.address)).toBe(10_000_000n);

      const offToken = (await off.register()).token;
      const closed = await fetch(
        `${off.baseUrl}/proxy/${offToken}/fund/base/typed-data?from=${account.address}&amount_microunits=1000000`,
      );
      expect(closed.status).toBe(503);
      // Customers read that it is not offered; only the operator's API names the setting.
      const closedError = await errorOf(closed);
      expect(closedError.message).toContain("not offered");
      expect(closedError.message).not.toContain("BASE_DEPOSIT_ADDRESS");
      const offOptions = (await (await fetch(`${off.baseUrl}/proxy/${offToken}/funding`)).json()) as {
        base: Record<string, unknown>;
      };
      expect(offOptions.base).toMatchObject({ enabled: false });
      expect(String(offOptions.base.reason)).not.toContain("BASE_DEPOSIT_ADDRESS");
      const setup = (await (
        await fetch(`${off.baseUrl}/v1/admin/funding`, {
          headers: { authorization: `Bearer ${testAdminToken}` },
        })
      ).json()) as { base: { enabled: boolean; missing: string[] } };
      expect(setup.base).toMatchObject({
        enabled: false,
        missing: expect.arrayContaining(["BASE_DEPOSIT_ADDRESS"]),
      });
      expect((await fetch(`${off.baseUrl}/v1/admin/funding`)).status).toBe(401);
    } finally {
      await starved.close();
      await off.close();
    }
  });
});
