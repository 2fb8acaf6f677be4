import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, address, generateKeyPairSigner } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOLANA_DEVNET_CAIP2 } from "../../../lib/chains/solana/constants";
import { chainDeposits, depositCursors, hosts } from "../../../lib/db/schema";
import { scanDeposits } from "../../../lib/deposits/solana/deposit-watcher";
import { ensureAccount, getAccountBalance, systemAccounts } from "../../../lib/ledger/accounts";
import {
  editConfig,
  podAgent,
  podAgentExit,
  type RunningAgent,
  startAgent,
} from "../../helpers/agent-process";
import { type FakeUpstream, startFakeUpstream } from "../../helpers/fake-upstream";
import { startTestGateway, type TestGateway, testAdminToken } from "../../helpers/gateway";
import { type LocalSolana, startLocalSolana } from "../../helpers/solana/local-solana";
import { sendUsdcWithMemo } from "../../helpers/solana/usdc-deposit";

/**
 * A new GPU operator's first hour, as `pod-agent` processes against a running gateway whose
 * deposit watcher reads the project's local Solana chain: enroll (the host token printed once
 * and kept with the key), a config pasted over from the docs, a second enrolment refused, a
 * bond sent with the wrong memo (parked, the host stays pending), the bond posted with `pod-agent
 * bond` from a keypair file (the running agent logs the activation), a second `pod-agent bond`
 * posting nothing, a job served behind a backend whose context is smaller than the catalog's
 * output limit, and withdrawals refused in words and dollars.
 */
let solana: LocalSolana;
let gateway: TestGateway;
let backend: FakeUpstream;
let agent: RunningAgent | undefined;
let dir: string;
let configPath: string;
let identityPath: string;
let keypairPath: string;
let depositWallet: Address;
let enrollOutput: string;
let providerId: string;
let hostToken: string;

const price = { input_per_1m: 100_000, output_per_1m: 400_000 };
const marketOnly = { "X-Pod-Routing-Mode": "marketplace-only" };
/** The context the stand-in vLLM reports: far below the catalog's output limit for the model. */
const contextWindow = 2048;

async function hostStatus(): Promise<string> {
  const response = await fetch(`${gateway.baseUrl}/v1/host/profile`, {
    headers: { authorization: `Bearer ${hostToken}` },
  });
  return ((await response.json()) as { status: string }).status;
}

async function accountBalance(kind: "bond" | "suspense", ref: string): Promise<bigint> {
  const id = await ensureAccount(gateway.app.database.db, kind, ref);
  return (await getAccountBalance(gateway.app.database.db, id)).balance;
}

beforeAll(async () => {
  solana = await startLocalSolana();
  // The operator's Solana CLI keypair file: it holds the bond's USDC and SOL for the fee.
  const operator = Keypair.generate();
  const operatorAddress = address(operator.publicKey.toBase58());
  await solana.airdrop(operatorAddress, 1_000_000_000n);
  await solana.mintUsdc(operatorAddress, 60_000_000n);
  depositWallet = (await generateKeyPairSigner()).address;
  await solana.createAta(depositWallet, solana.usdcMint);
  gateway = await startTestGateway({
    maintenance: true,
    env: {
      SOLANA_DEPOSIT_ADDRESS: depositWallet,
      SOLANA_DEPOSIT_COMMITMENT: "confirmed",
      SOLANA_DEPOSIT_POLL_SECONDS: "1",
      SOLANA_RPC_URL: solana.rpcUrl,
      SOLANA_NETWORK: SOLANA_DEVNET_CAIP2,
    },
  });
  backend = await startFakeUpstream("openai", "agent-backend");
  // A vLLM started with --max-model-len 2048, as its /v1/models reports it.
  backend.setModelList({
    object: "list",
    data: [{ id: "gpt-4o-mini", object: "model", owned_by: "vllm", max_model_len: contextWindow }],
  });
  dir = mkdtempSync(join(tmpdir(), "pod-agent-first-hour-"));
  configPath = join(dir, "config.json");
  identityPath = join(dir, "identity.key");
  keypairPath = join(dir, "operator.json");
  writeFileSync(keypairPath, JSON.stringify(Array.from(operator.secretKey)));
  enrollOutput = await podAgent(
    [
      "enroll",
      "--config",
      configPath,
      "--gateway",
      gateway.baseUrl,
      "--name",
      "first hour host",
      "--wallet",
      operatorAddress,
    ],
    { POD_AGENT_IDENTITY: identityPath },
  );
  providerId = /provider_id: (\S+)/.exec(enrollOutput)?.[1] ?? "";
  hostToken = /host_token: (pod_host_\S+)/.exec(enrollOutput)?.[1] ?? "";
}, 120_000);

afterAll(async () => {
  await agent?.stop();
  await backend?.close();
  await gateway?.close();
  await solana?.close();
});

describe("a new operator's first hour with pod-agent", () => {
  it("enroll prints the host token once, says where it is kept, and keeps the enrolment out of the config", () => {
    expect(providerId).toMatch(/^[0-9a-f-]{36}$/);
    expect(hostToken).toMatch(/^pod_host_/);
    expect(enrollOutput).toContain(`stored in ${identityPath}, mode 0600`);
    expect(enrollOutput).toContain(`${gateway.baseUrl}/dashboard/provider`);
    expect(enrollOutput).toContain("pod-agent bond --keypair");
    expect(enrollOutput).toMatch(new RegExp(`post 50 USDC with the memo POD-BOND-\\S+ to ${depositWallet}`));
    const config = JSON.parse(readFileSync(configPath, "utf8")) as Record<string, unknown>;
    expect(config.host_token).toBeUndefined();
    expect(config.enrollment_code).toBeUndefined();
    expect(readFileSync(identityPath, "utf8")).toContain(`host_token: ${hostToken}`);
  });

  it("a config pasted from the docs keeps the enrolment; validate catches a key that is not there", async () => {
    // The docs' example config, pasted over the one enroll wrote (identity_path pointed at the test's key).
    writeFileSync(
      configPath,
      JSON.stringify({
        gateway: gateway.baseUrl,
        identity_path: identityPath,
        backends: [{ kind: "vllm", url: backend.baseUrl }],
        pricing: { models: { "gpt-4o-mini": price } },
        metrics_addr: "",
      }),
    );
    const valid = await podAgentExit(["validate", "--config", configPath]);
    expect(valid.output).toContain(`ok: gpt-4o-mini on vllm ${backend.baseUrl}`);
    expect(valid.output).toContain(`context ${contextWindow} tokens`);
    expect(valid.output.trim().endsWith("valid")).toBe(true);
    expect(valid.code).toBe(0);

    editConfig(configPath, (config) => {
      config.identity_path = join(dir, "missing.key");
    });
    const missing = await podAgentExit(["validate", "--config", configPath]);
    expect(missing.code).toBe(1);
    expect(missing.output).toContain(`no identity at ${join(dir, "missing.key")}`);
    expect(missing.output).toContain("not valid");
    const run = await podAgentExit(["run", "--config", configPath]);
    expect(run.code).toBe(1);
    expect(run.output).toContain("no identity at");
    editConfig(configPath, (config) => {
      config.identity_path = identityPath;
    });
  });

  it("enrolling again without a terminal to ask on creates no second host", async () => {
    const before = await gateway.app.database.db.select({ id: hosts.id }).from(hosts);
    const again = await podAgentExit([
      "enroll",
      "--config",
      configPath,
      "--name",
      "oops",
      "--wallet",
      depositWallet,
    ]);
    expect(again.code).toBe(2);
    expect(again.output).toContain("already enrolled");
    expect(again.output).toContain("nothing created");
    const after = await gateway.app.database.db.select({ id: hosts.id }).from(hosts);
    expect(after).toHaveLength(before.length);
    expect(readFileSync(identityPath, "utf8")).toContain(`host_token: ${hostToken}`);
  });

  it("a bond with the wrong memo is parked; pod-agent bond posts it, the agent logs the activation, a second run posts nothing", async () => {
    agent = startAgent(configPath);
    await agent.waitFor("serving gpt-4o-mini");
    await agent.waitFor("host pending: waiting for its bond");

    // 50 USDC with a well-formed bond code that is no host's: suspense, not this host's bond.
    const stranger = await generateKeyPairSigner();
    await solana.airdrop(stranger.address, 100_000_000n);
    await solana.mintUsdc(stranger.address, 50_000_000n);
    const wrong = await sendUsdcWithMemo(solana, {
      payer: stranger,
      owner: depositWallet,
      amount: 50_000_000n,
      memo: "POD-BOND-ZZZZ2222",
    });
    await expect
      .poll(
        async () =>
          (
            await gateway.app.database.db
              .select({ status: chainDeposits.status, reason: chainDeposits.reason })
              .from(chainDeposits)
              .where(eq(chainDeposits.signature, wrong))
          )[0],
        { timeout: 20_000 },
      )
      .toEqual({ status: "unmatched", reason: "unknown_code" });
    expect(await hostStatus()).toBe("pending");
    expect(await accountBalance("bond", providerId)).toBe(0n);

    const posted = await podAgentExit([
      "bond",
      "--config",
      configPath,
      "--keypair",
      keypairPath,
      "--wait",
      "30",
    ]);
    expect(posted.output).toMatch(/posting 50 USDC from \S+ with the memo POD-BOND-/);
    expect(posted.output).toContain("confirmed on chain");
    expect(posted.output).toContain(`host ${providerId} is active: bond of 50 USDC received`);
    expect(posted.code).toBe(0);
    await agent.waitFor("host active: bond of 50 USDC received");
    expect(await accountBalance("bond", providerId)).toBe(50_000_000n);

    // A second run (a retry, a second terminal) sends nothing: the operator keeps 10 USDC.
    const again = await podAgentExit(["bond", "--config", configPath, "--keypair", keypairPath]);
    expect(again.code).toBe(0);
    expect(again.output).toContain("nothing sent: the host is active");
    expect(
      await solana.getTokenBalance(
        address(
          Keypair.fromSecretKey(
            Uint8Array.from(JSON.parse(readFileSync(keypairPath, "utf8")) as number[]),
          ).publicKey.toBase58(),
        ),
        solana.usdcMint,
      ),
    ).toBe(10_000_000n);
    expect(await solana.getTokenBalance(depositWallet, solana.usdcMint)).toBe(100_000_000n);
    expect(await accountBalance("bond", providerId)).toBe(50_000_000n);
    expect(await accountBalance("suspense", systemAccounts.depositSuspense.ref)).toBe(50_000_000n);
  }, 90_000);

  it("a bond posted twice is held whole and each transfer is booked once, even when the watcher reads the chain again", async () => {
    const enrolled = (await (
      await fetch(`${gateway.baseUrl}/v1/host/enroll`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ display_name: "double bond", wallet: depositWallet }),
      })
    ).json()) as { provider_id: string; host_token: string; bond: { deposit_code: string } };
    const payer = await generateKeyPairSigner();
    await solana.airdrop(payer.address, 100_000_000n);
    await solana.mintUsdc(payer.address, 100_000_000n);
    const status = async () =>
      (
        await gateway.app.database.db
          .select({ status: hosts.status })
          .from(hosts)
          .where(eq(hosts.id, enrolled.provider_id))
      )[0]?.status;
    const post = () =>
      sendUsdcWithMemo(solana, {
        payer,
        owner: depositWallet,
        amount: 50_000_000n,
        memo: enrolled.bond.deposit_code,
      });
    const [first, second] = [await post(), await post()];
    expect(first).not.toBe(second);
    await expect
      .poll(() => accountBalance("bond", enrolled.provider_id), { timeout: 20_000 })
      .toBe(100_000_000n);
    expect(await status()).toBe("active");
    const suspense = await accountBalance("suspense", systemAccounts.depositSuspense.ref);

    // The watcher loses its place and reads every deposit again: nothing is booked twice.
    await gateway.app.database.db.delete(depositCursors);
    const rescan = await scanDeposits(gateway.app);
    expect(rescan).toMatchObject({ credited: 0, bonded: 0, unmatched: 0 });
    expect(await accountBalance("bond", enrolled.provider_id)).toBe(100_000_000n);
    expect(await accountBalance("suspense", systemAccounts.depositSuspense.ref)).toBe(suspense);
    const booked = await gateway.app.database.db
      .select({ signature: chainDeposits.signature })
      .from(chainDeposits)
      .where(eq(chainDeposits.hostId, enrolled.provider_id));
    expect(booked.map((row) => row.signature).sort()).toEqual([first, second].sort());
  }, 60_000);

  it("serves a job whose output limit is lowered to fit the backend's context, logs it, and the host's page data shows the agent", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const openai = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    });
    // No max_tokens: the gateway forwards the catalog's output limit, more than the context holds.
    const { data, response } = await openai.chat.completions
      .create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi [fake:tokens=4]" }] },
        { headers: marketOnly },
      )
      .withResponse();
    expect(response.headers.get("x-pod-provider-id")).toBe(providerId);
    expect(data.choices[0]?.message.content).toBe("Hello w1 w2 w3");
    const sent = backend.requests.filter((request) => request.path === "/v1/chat/completions").at(-1);
    const limit = Number(sent?.body.max_completion_tokens ?? sent?.body.max_tokens);
    expect(limit).toBeGreaterThan(contextWindow / 2);
    expect(limit).toBeLessThan(contextWindow);
    await agent?.waitFor(
      /job \S+ gpt-4o-mini: done 200, in \d+\.\d\d s, \d+ bytes, 4 output tokens \([\d.]+ tokens\/s\), output limit \d+ lowered to \d+ to fit the context/,
    );

    await expect
      .poll(async () => {
        const response = await fetch(`${gateway.baseUrl}/v1/host/agent`, {
          headers: { authorization: `Bearer ${hostToken}` },
        });
        return (await response.json()) as { tokens_per_second: number };
      })
      .toMatchObject({ tokens_per_second: expect.any(Number) });
    const view = (await (
      await fetch(`${gateway.baseUrl}/v1/host/agent`, { headers: { authorization: `Bearer ${hostToken}` } })
    ).json()) as Record<string, unknown>;
    expect(view).toMatchObject({
      connected: true,
      agent_version: "0.1.0",
      models: [
        {
          model: "gpt-4o-mini",
          input_per_1m: price.input_per_1m,
          output_per_1m: price.output_per_1m,
          max_concurrent: 2,
          free_slots: 2,
        },
      ],
    });
    expect(view.tokens_per_second).toBeGreaterThan(0);
    expect(Date.parse(String(view.connected_at))).toBeLessThanOrEqual(Date.now());
  });

  it("refuses withdrawals in words and dollars: below the minimum, not yet matured, and while suspended", async () => {
    const withdraw = async (amount: string) => {
      const response = await fetch(`${gateway.baseUrl}/v1/host/withdraw`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${hostToken}`,
          "content-type": "application/json",
          "idempotency-key": crypto.randomUUID(),
        },
        body: JSON.stringify({ amount_usdc: amount }),
      });
      return {
        status: response.status,
        message: ((await response.json()) as { error: { message: string } }).error.message,
      };
    };
    expect(await withdraw("1")).toEqual({
      status: 400,
      message: "the minimum withdrawal is 5 USDC; 1 USDC was asked",
    });
    // What the job earned is still maturing (7 days by default): none of it can leave yet.
    const immature = await withdraw("5");
    expect(immature.status).toBe(402);
    expect(immature.message).toMatch(
      /^0 USDC can be withdrawn now and 5 USDC was asked \(0\.\d+ USDC more is maturing: earnings become withdrawable 7 days after they were earned\)$/,
    );
    const suspend = await fetch(`${gateway.baseUrl}/v1/admin/hosts/${providerId}/suspend`, {
      method: "POST",
      headers: { authorization: `Bearer ${testAdminToken}` },
    });
    expect(suspend.status).toBe(200);
    const frozen = await withdraw("5");
    expect(frozen.status).toBe(403);
    expect(frozen.message).toContain("this host is suspended");
  });
});
