import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hosts } from "../../../lib/db/schema";
import { scanDeposits } from "../../../lib/deposits/solana/deposit-watcher";
import { ensureAccount, getAccountBalance, systemAccounts } from "../../../lib/ledger/accounts";
import { runPayouts } from "../../../lib/payouts/core/run-payouts";
import { editConfig, podAgent, type RunningAgent, startAgent } from "../../helpers/agent-process";
import { type FakeUpstream, startFakeUpstream } from "../../helpers/fake-upstream";
import { freePort } from "../../helpers/free-port";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { streamReceipt, verifiedReceipt } from "../../helpers/receipts";
import { type LocalSolana, startLocalSolana } from "../../helpers/solana/local-solana";
import { sendUsdcWithMemo } from "../../helpers/solana/usdc-deposit";
import { keyPairWithSecret } from "../../helpers/x402-chain";

/**
 * The provider agent of this repository, run as `pod-agent` processes against a running
 * gateway and a local OpenAI-compatible server (a fake speaking the exact wire format). The
 * host is activated by its 50 USDC bond deposited on the project's local Solana chain, and its
 * earnings are paid out in USDC there.
 */
let solana: LocalSolana;
/** The operator's wallet, given at enrolment: where withdrawals go. */
let wallet: Address;
let gateway: TestGateway;
let backend: FakeUpstream;
let agent: RunningAgent | undefined;
let configPath: string;
let providerId: string;
let hostToken: string;
let metricsPort: number;

const price = { input_per_1m: 100_000, output_per_1m: 400_000 };
const marketOnly = { "X-Pod-Routing-Mode": "marketplace-only" };

beforeAll(async () => {
  solana = await startLocalSolana();
  const payout = await keyPairWithSecret();
  await solana.airdrop(payout.signer.address, 2_000_000_000n);
  await solana.mintUsdc(payout.signer.address, 1_000_000_000n);
  // The operator's wallet holds the 50 USDC bond (and SOL for fees); the gateway watches its
  // deposit wallet for the bond code.
  const operator = await generateKeyPairSigner();
  wallet = operator.address;
  await solana.airdrop(wallet, 100_000_000n);
  await solana.mintUsdc(wallet, 50_000_000n);
  const depositWallet = (await generateKeyPairSigner()).address;
  await solana.createAta(depositWallet, solana.usdcMint);
  gateway = await startTestGateway({
    env: {
      // Earnings are withdrawable at once here; maturity has its own tests (slashing.test.ts).
      HOST_EARNINGS_MATURITY_SECONDS: "0",
      SOLANA_DEPOSIT_ADDRESS: depositWallet,
      SOLANA_DEPOSIT_COMMITMENT: "confirmed",
      SOLANA_RPC_URL: solana.rpcUrl,
      SOLANA_NETWORK: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
      HOST_PAYOUT_SECRET: payout.secret,
      HOST_WITHDRAW_MIN_MICROUNITS: "1000",
      // Long enough for every job here but the one that is meant to miss it.
      PROVIDER_JOB_DEADLINE_MS: "5000",
    },
  });
  backend = await startFakeUpstream("openai", "agent-backend");
  const dir = mkdtempSync(join(tmpdir(), "pod-agent-"));
  configPath = join(dir, "config.json");
  const output = await podAgent(
    [
      "enroll",
      "--config",
      configPath,
      "--gateway",
      gateway.baseUrl,
      "--name",
      "e2e host",
      "--wallet",
      wallet,
    ],
    { POD_AGENT_IDENTITY: join(dir, "identity.key") },
  );
  providerId = /provider_id: (\S+)/.exec(output)?.[1] ?? "";
  expect(output).toMatch(/enrollment_code: POD-ENROLL-/);
  const bond = /bond: post 50 USDC with the memo (POD-BOND-\S+) to (\S+)/.exec(output);
  expect(bond?.[2]).toBe(depositWallet);
  expect(statSync(join(dir, "identity.key")).mode & 0o777).toBe(0o600);
  metricsPort = await freePort();
  editConfig(configPath, (config) => {
    config.identity_path = join(dir, "identity.key");
    config.backends = [{ kind: "llamacpp", url: backend.baseUrl, models: ["gpt-4o-mini"] }];
    config.pricing = { models: { "gpt-4o-mini": price } };
    config.metrics_addr = `127.0.0.1:${metricsPort}`;
  });
  // Activated by its bond on chain: the code the agent printed, in a memo beside 50 USDC.
  hostToken = /host_token: (pod_host_\S+)/.exec(output)?.[1] ?? "";
  const profile = async () =>
    (
      (await (
        await fetch(`${gateway.baseUrl}/v1/host/profile`, {
          headers: { authorization: `Bearer ${hostToken}` },
        })
      ).json()) as { status: string }
    ).status;
  expect(await profile()).toBe("pending");
  await sendUsdcWithMemo(solana, {
    payer: operator,
    owner: depositWallet,
    amount: 50_000_000n,
    memo: bond?.[1] ?? "",
  });
  expect(await scanDeposits(gateway.app)).toMatchObject({ bonded: 1 });
  expect(await profile()).toBe("active");
  agent = startAgent(configPath);
  await agent.waitFor("serving gpt-4o-mini");
});

afterAll(async () => {
  await agent?.stop();
  await backend?.close();
  await gateway?.close();
  await solana?.close();
});

async function balanceOf(kind: "provider" | "treasury", ref: string): Promise<bigint> {
  const id = await ensureAccount(gateway.app.database.db, kind, ref);
  return (await getAccountBalance(gateway.app.database.db, id)).balance;
}

describe("pod-agent against a running gateway", () => {
  it("validate sees the backend's models and their prices", async () => {
    const output = await podAgent(["validate", "--config", configPath]);
    expect(output).toContain("ok: gpt-4o-mini on llamacpp");
    expect(output).toContain("valid");
    expect(output).not.toContain("llama-3.1-8b-instruct");
  });

  it("serves marketplace-only requests in both dialects, streamed and not, credited 80/20", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const providerBefore = await balanceOf("provider", providerId);
    const treasuryBefore = await balanceOf("treasury", systemAccounts.treasury.ref);
    const openai = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const anthropic = new Anthropic({
      baseURL: `${gateway.baseUrl}/proxy/${token}`,
      apiKey: "pod",
      maxRetries: 0,
    });

    const { data, response } = await openai.chat.completions
      .create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi [fake:tokens=4]" }] },
        { headers: marketOnly },
      )
      .withResponse();
    expect(response.headers.get("x-pod-route")).toBe("marketplace");
    expect(response.headers.get("x-pod-provider-id")).toBe(providerId);
    expect(data.choices[0]?.message.content).toBe("Hello w1 w2 w3");

    const stream = await openai.chat.completions.create(
      { model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi [fake:tokens=3]" }] },
      { headers: marketOnly },
    );
    let streamed = "";
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    expect(streamed).toBe("Hello w1 w2");

    const message = await anthropic.messages.create(
      { model: "gpt-4o-mini", max_tokens: 50, messages: [{ role: "user", content: "hi [fake:tokens=2]" }] },
      { headers: marketOnly },
    );
    expect(message.content[0]).toMatchObject({ type: "text", text: "Hello w1" });

    const events = await anthropic.messages.create(
      {
        model: "gpt-4o-mini",
        max_tokens: 50,
        stream: true,
        messages: [{ role: "user", content: "hi [fake:tokens=2]" }],
      },
      { headers: marketOnly },
    );
    let text = "";
    for await (const event of events) {
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
    }
    expect(text).toBe("Hello w1");
    expect(backend.requests.filter((request) => request.path === "/v1/chat/completions")).toHaveLength(4);

    await expect.poll(() => gateway.balanceOf(token).then((b) => b.held)).toBe(0n);
    const charged = 10_000_000n - (await gateway.balanceOf(token)).balance;
    expect(charged).toBeGreaterThan(0n);
    const providerGain = (await balanceOf("provider", providerId)) - providerBefore;
    const treasuryGain = (await balanceOf("treasury", systemAccounts.treasury.ref)) - treasuryBefore;
    expect(providerGain + treasuryGain).toBe(charged);
    // 80% per request, rounded down per request: never more than 80% of the sum.
    expect(providerGain).toBeLessThanOrEqual((charged * 80n) / 100n);
    expect(providerGain).toBeGreaterThanOrEqual((charged * 80n) / 100n - 4n);

    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
    expect(metrics).toContain("pod_agent_ws_connected 1");
    expect(metrics).toMatch(/pod_agent_jobs_total [4-9]/);
    const status = await podAgent(["status", "--config", configPath]);
    expect(status).toContain(`connected as ${providerId} (active)`);
    expect(status).toContain("models: gpt-4o-mini");
  });

  it("a job's receipt carries the agent's co-signature, streamed and not, and is listed with the host's earnings", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    const [host] = await gateway.app.database.db
      .select({ pubkey: hosts.agentPubkey })
      .from(hosts)
      .where(eq(hosts.id, providerId));
    const hostPubkey = host?.pubkey ?? "";
    const ask = (body: object) =>
      fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...marketOnly },
        body: JSON.stringify({
          model: "gpt-4o-mini",
          messages: [{ role: "user", content: "hi [fake:tokens=3]" }],
          ...body,
        }),
      });
    const whole = await ask({});
    const wholeBody = await whole.text();
    const receipt = await verifiedReceipt(gateway.baseUrl, whole.headers.get("x-pod-receipt") ?? "", {
      requestId: whole.headers.get("x-request-id") ?? "",
      responseBody: wholeBody,
      hostPubkey,
    });
    expect(receipt.source).toEqual({ route: "marketplace", provider_id: providerId });
    expect(receipt.usage.counted_by).toBe("gateway_tokenizer");
    expect(BigInt(receipt.host_share)).toBe((BigInt(receipt.charge) * 80n) / 100n);
    // The agent was sent the body the gateway forwarded and answered the bytes the caller got.
    expect(receipt.host?.response_sha256).toBe(receipt.hashes.response_sha256);

    const streamed = await ask({ stream: true });
    const { jws, covered } = streamReceipt(await streamed.text());
    const streamedReceipt = await verifiedReceipt(gateway.baseUrl, jws, {
      responseBody: covered,
      hostPubkey,
    });
    expect(streamedReceipt.host?.pubkey).toBe(hostPubkey);

    await expect
      .poll(async () => {
        await gateway.app.receipts?.store.flush();
        const rows = (await (
          await fetch(`${gateway.baseUrl}/v1/host/transactions`, {
            headers: { authorization: `Bearer ${hostToken}` },
          })
        ).json()) as { data: Array<{ request_id: string | null; receipt: string | null }> };
        return rows.data.find((row) => row.request_id === streamedReceipt.request_id)?.receipt;
      })
      .toBe(jws);
  });

  it("withdraws what it earned to its wallet on the local chain; two withdrawals at once never pay more than the balance", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const openai = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    });
    // Two jobs of 5000 output tokens at 400000 per 1M: 2000 microunits each, 80% to the host.
    for (let job = 0; job < 2; job++) {
      await openai.chat.completions.create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "earn [fake:tokens=5000]" }] },
        { headers: marketOnly },
      );
    }
    // The host token `enroll` printed (and kept beside the agent's key) is the operator's credential.
    const host = (path: string, init: RequestInit = {}) =>
      fetch(`${gateway.baseUrl}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${hostToken}`,
          "content-type": "application/json",
          ...init.headers,
        },
      });
    const balanceBefore = (await (await host("/v1/host/balance")).json()) as { usdc_balance: number };
    const earned = BigInt(balanceBefore.usdc_balance);
    expect(earned).toBeGreaterThanOrEqual(3200n);

    // Each asks for two thirds of the balance: the two cannot both be paid.
    const amount = (earned * 2n) / 3n;
    const withdraw = (key: string) =>
      host("/v1/host/withdraw", {
        method: "POST",
        headers: { "idempotency-key": key },
        body: JSON.stringify({ amount_usdc: (Number(amount) / 1_000_000).toFixed(6) }),
      });
    const answers = await Promise.all([withdraw("agent-cashout-1"), withdraw("agent-cashout-2")]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 402]);
    const accepted = answers.find((answer) => answer.status === 202);
    const payout = (await accepted?.json()) as { id: string; status: string; destination: string };
    expect(payout).toMatchObject({ status: "requested", destination: wallet });
    expect(await balanceOf("provider", providerId)).toBe(earned - amount);

    // The payout worker sends the USDC from the payout wallet and follows it to confirmation.
    expect(await runPayouts(gateway.app)).toBe(1);
    expect(await solana.getTokenBalance(wallet, solana.usdcMint)).toBe(amount);
    const after = (await (await host("/v1/host/balance")).json()) as {
      usdc_balance: number;
      payouts: Array<{ id: string; status: string; signature: string | null }>;
    };
    expect(after.usdc_balance).toBe(Number(earned - amount));
    expect(after.payouts[0]).toMatchObject({ id: payout.id, status: "confirmed" });
    expect(after.payouts[0]?.signature).toBeTruthy();
    const list = (await (await host("/v1/host/transactions")).json()) as {
      data: Array<{ kind: string; amount_microunits: number }>;
    };
    expect(list.data.some((row) => row.amount_microunits === -Number(amount))).toBe(true);
    // Nothing is paid twice.
    expect(await runPayouts(gateway.app)).toBe(0);
    expect(await solana.getTokenBalance(wallet, solana.usdcMint)).toBe(amount);
    const status = await podAgent(["status", "--config", configPath]);
    expect(status).toContain(`earnings ${(Number(earned - amount) / 1_000_000).toFixed(6)} USDC`);
  });

  it("a slow backend misses the job deadline: the caller gets an error, the backend request is cancelled, nothing is billed", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const abortedBefore = backend.abortedRequests;
    const started = Date.now();
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...marketOnly },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "slow [fake:hang=20000]" }],
      }),
    });
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain("deadline");
    expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
    await expect.poll(() => backend.abortedRequests, { timeout: 5_000 }).toBe(abortedBefore + 1);
    await expect.poll(() => gateway.balanceOf(token).then((b) => b.held)).toBe(0n);
    expect((await gateway.balanceOf(token)).balance).toBe(10_000_000n);
  });

  it("a second pod-agent with the same identity takes over and the first stops for good; a price above the cap is refused with the cap named", async () => {
    const first = agent;
    // The same identity and host, but gpt-4o-mini priced far above the cheapest centralized price.
    const dearConfig = `${configPath}.dear.json`;
    writeFileSync(dearConfig, readFileSync(configPath));
    editConfig(dearConfig, (config) => {
      config.pricing = { models: { "gpt-4o-mini": { input_per_1m: 100_000, output_per_1m: 90_000_000 } } };
      config.metrics_addr = "";
    });
    const dear = startAgent(dearConfig);
    await first?.waitFor("stopped: another agent connected with the same identity");
    expect(await first?.stop()).toBe(1);
    await dear.waitFor(
      /gateway refused gpt-4o-mini: price above the cap for gpt-4o-mini: asked input 100000 \/ output 90000000, the cap \(cheapest centralized price\) is input \d+ \/ output \d+/,
    );
    await dear.waitFor("serving no models");
    const token = await gateway.createFundedToken(10_000_000n);
    const refused = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...marketOnly },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(refused.status).toBe(503);

    // Back at a price under the cap: this agent takes over in turn and serves again.
    agent = startAgent(configPath);
    await dear.waitFor("stopped: another agent connected with the same identity");
    await agent.waitFor("serving gpt-4o-mini");
    expect(await dear.stop()).toBe(1);
  });

  it("a caller who disconnects mid-stream gets the job cancelled at the backend", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const abortedBefore = backend.abortedRequests;
    const controller = new AbortController();
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...marketOnly },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        stream: true,
        messages: [{ role: "user", content: "long [fake:tokens=200] [fake:slow=50]" }],
      }),
      signal: controller.signal,
    });
    await response.body?.getReader().read();
    controller.abort();
    await expect.poll(() => backend.abortedRequests, { timeout: 5_000 }).toBe(abortedBefore + 1);
    await expect.poll(() => gateway.balanceOf(token).then((b) => b.held)).toBe(0n);
  });

  it("the agent dying mid-stream: an in-band error for the caller, billed for what was streamed; it reconnects", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...marketOnly },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        stream: true,
        messages: [{ role: "user", content: "long [fake:tokens=200] [fake:slow=50]" }],
      }),
    });
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("Hello")) text += decoder.decode((await reader.read()).value);
    await agent?.stop("SIGKILL");
    for (let step = await reader.read(); !step.done; step = await reader.read())
      text += decoder.decode(step.value);
    expect(text).toContain("Hello");
    expect(text).toMatch(/"error"/);
    expect(text).not.toContain("[DONE]");
    await expect.poll(() => gateway.balanceOf(token).then((b) => b.held)).toBe(0n);
    expect((await gateway.balanceOf(token)).balance).toBeLessThan(10_000_000n);

    agent = startAgent(configPath);
    await agent.waitFor("serving gpt-4o-mini");
    const again = await new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    }).chat.completions.create(
      { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
      { headers: marketOnly },
    );
    expect(again.choices[0]?.message.content).toContain("Hello");
  });

  it("stopped by its operator (SIGTERM), the agent says 'stopped' once, not why twice, and exits 0", async () => {
    const running = agent;
    expect(await running?.stop("SIGTERM")).toBe(0);
    const output = running?.output() ?? "";
    expect(output.trim().split("\n").at(-1)).toMatch(/^\S+ stopped$/);
    expect(output).not.toContain("stopped: stopped");
  });
});
