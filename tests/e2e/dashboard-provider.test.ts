import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, address, generateKeyPairSigner } from "@solana/kit";
import { Keypair, VersionedTransaction } from "@solana/web3.js";
import OpenAI from "openai";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOLANA_DEVNET_CAIP2 } from "../../lib/chains/solana/constants";
import { ensureAccount, getAccountBalance } from "../../lib/ledger/accounts";
import { editConfig, podAgent, type RunningAgent, startAgent } from "../helpers/agent-process";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { type LocalSolana, startLocalSolana } from "../helpers/solana/local-solana";
import { keyPairWithSecret } from "../helpers/x402-chain";
import {
  desktop,
  hasChromium,
  launchChromium,
  openDevice,
  phone,
  shoot,
  type WatchedPage,
} from "./dashboard-browser";
import { ensureBuild } from "./next-server";
import { axeViolations } from "./page-checks";
import { testWalletScript } from "./test-solana-wallet";

/**
 * A new GPU operator's first hour on the provider page, in a real Chromium against a gateway
 * whose deposit watcher and payout worker run on the project's local Solana chain: `pod-agent
 * enroll`, the agent connecting while the host is pending, the 50 USDC bond posted from a
 * browser wallet (a Wallet Standard test wallet signing in Node) with the page adding the memo,
 * the agent logging its activation, a job served and its earning listed, a withdrawal paid with
 * its on-chain link; and a second operator posting the bond with `pod-agent bond` while a phone
 * watches. Desktop and phone width, light and dark; no page wider than a 360 px screen, and
 * axe-core's contrast check on the sign-in page and the signed-in cockpit.
 */

if (!hasChromium)
  console.warn("provider dashboard e2e skipped: /usr/bin/chromium is missing (apt-get install -y chromium)");

const price = { input_per_1m: 100_000, output_per_1m: 400_000 };

/** How wide the page is against its viewport, and the elements that stick out (to name the culprit). */
async function overflows(page: Page): Promise<{ scroll: number; viewport: number; outside: string[] }> {
  return page.evaluate(() => {
    const viewport = window.innerWidth;
    const outside = [...document.querySelectorAll("body *")]
      .filter((element) => element.getBoundingClientRect().right > viewport + 0.5)
      .filter((element) => !element.closest(".dash-table-wrap"))
      .slice(0, 5)
      .map(
        (element) =>
          `${element.tagName.toLowerCase()}.${element.className} (${Math.round(element.getBoundingClientRect().right)} px)`,
      );
    return { scroll: document.documentElement.scrollWidth, viewport, outside };
  });
}

async function signIn(page: Page, baseUrl: string, hostToken: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/provider`);
  await page.getByLabel("Host token").fill(hostToken);
  await page.getByRole("button", { name: "Open provider dashboard" }).click();
  await page.getByRole("heading", { name: "Bond" }).waitFor();
}

describe.skipIf(!hasChromium)("dashboard: a new operator's first hour on the provider page", () => {
  let solana: LocalSolana;
  let gateway: TestGateway;
  let backend: FakeUpstream;
  let browser: Browser;
  let depositWallet: Address;
  const agents: RunningAgent[] = [];
  const dir = mkdtempSync(join(tmpdir(), "provider-page-"));
  /** The first operator's browser wallet: holds the bond's USDC. */
  const walletKeys = Keypair.generate();
  const walletAddress = address(walletKeys.publicKey.toBase58());
  let firstHostToken = "";

  async function enroll(name: string, wallet: string) {
    const configPath = join(dir, `${name}.json`);
    const output = await podAgent(
      ["enroll", "--config", configPath, "--gateway", gateway.baseUrl, "--name", name, "--wallet", wallet],
      { POD_AGENT_IDENTITY: join(dir, `${name}.key`) },
    );
    editConfig(configPath, (config) => {
      config.backends = [{ kind: "llamacpp", url: backend.baseUrl, models: ["gpt-4o-mini"] }];
      config.pricing = { models: { "gpt-4o-mini": price } };
      config.metrics_addr = "";
    });
    return {
      configPath,
      providerId: /provider_id: (\S+)/.exec(output)?.[1] ?? "",
      hostToken: /host_token: (pod_host_\S+)/.exec(output)?.[1] ?? "",
    };
  }

  async function walletDevice(options: { width?: number; dark?: boolean } = {}): Promise<WatchedPage> {
    const watched = await openDevice(browser, gateway.baseUrl, options);
    await watched.page.exposeFunction("podTestWalletSign", (bytes: number[]) => {
      const transaction = VersionedTransaction.deserialize(Uint8Array.from(bytes));
      transaction.sign([walletKeys]);
      return Array.from(transaction.serialize());
    });
    await watched.page.addInitScript(
      testWalletScript(walletAddress, Array.from(walletKeys.publicKey.toBytes())),
    );
    return watched;
  }

  async function bondHeld(providerId: string): Promise<bigint> {
    const id = await ensureAccount(gateway.app.database.db, "bond", providerId);
    return (await getAccountBalance(gateway.app.database.db, id)).balance;
  }

  beforeAll(async () => {
    ensureBuild();
    solana = await startLocalSolana();
    const payout = await keyPairWithSecret();
    await solana.airdrop(payout.signer.address, 2_000_000_000n);
    await solana.mintUsdc(payout.signer.address, 1_000_000_000n);
    await solana.airdrop(walletAddress, 1_000_000_000n);
    await solana.mintUsdc(walletAddress, 60_000_000n);
    depositWallet = (await generateKeyPairSigner()).address;
    await solana.createAta(depositWallet, solana.usdcMint);
    gateway = await startTestGateway({
      withNext: true,
      maintenance: true,
      env: {
        SOLANA_DEPOSIT_ADDRESS: depositWallet,
        SOLANA_DEPOSIT_COMMITMENT: "confirmed",
        SOLANA_DEPOSIT_POLL_SECONDS: "1",
        SOLANA_RPC_URL: solana.rpcUrl,
        SOLANA_NETWORK: SOLANA_DEVNET_CAIP2,
        HOST_PAYOUT_SECRET: payout.secret,
        // Earnings are withdrawable at once here; maturity has its own tests (slashing.test.ts).
        HOST_EARNINGS_MATURITY_SECONDS: "0",
        HOST_WITHDRAW_MIN_MICROUNITS: "1000",
      },
    });
    backend = await startFakeUpstream("openai", "provider-page-backend");
    browser = await launchChromium();
  }, 900_000);

  afterAll(async () => {
    for (const agent of agents) await agent.stop();
    await browser?.close();
    await backend?.close();
    await gateway?.close();
    await solana?.close();
  });

  it("enroll, bond from a browser wallet, the agent on the page, a job's earning listed and withdrawn", async () => {
    const host = await enroll("wallet-host", walletAddress);
    firstHostToken = host.hostToken;
    const agent = startAgent(host.configPath);
    agents.push(agent);
    await agent.waitFor("host pending: waiting for its bond");

    const watched = await walletDevice();
    const { page } = watched;
    await page.goto(`${gateway.baseUrl}/dashboard/provider`);
    await page.getByLabel("Host token").fill("pod_host_not-a-host-token");
    await page.getByRole("button", { name: "Open provider dashboard" }).click();
    await page.locator(".dash-alert--error").waitFor();
    await signIn(page, gateway.baseUrl, host.hostToken);
    await expect(page.locator('[data-stat="status"] .dash-stat__value').textContent()).resolves.toBe(
      "pending",
    );
    // The agent is connected before the bond: the page shows it, and why it gets no jobs yet.
    await page
      .getByTestId("agent-summary")
      .getByText("Jobs are routed to it once the host is active")
      .waitFor();
    await expect(page.getByTestId("agent-summary").textContent()).resolves.toMatch(
      /^Connected, last seen \d+ s ago \([\d-]+ [\d:]+ UTC\): pod-agent 0\.1\.0, up \d+ s/,
    );
    // A pending host is not routed, whatever its standing: its trust card does not say "routed as usual".
    await expect(page.getByTestId("trust-summary").textContent()).resolves.toMatch(
      /^Good standing: not routed until its bond is seen and the host is active\./,
    );
    await expect(page.getByTestId("agent-models").locator("tbody tr").first().textContent()).resolves.toBe(
      "gpt-4o-mini$0.10$0.402 of 2",
    );
    await page.getByText("Other ways to post it").click();
    await expect(page.getByTestId("bond-destination").textContent()).resolves.toBe(depositWallet);
    await expect(page.getByTestId("bond-memo").textContent()).resolves.toMatch(/^POD-BOND-/);
    await shoot(page, "dashboard-provider-pending-desktop");

    // Two clicks: connect, post. The page adds the memo and follows the bond until the host is active.
    await page.getByRole("button", { name: "Connect Pod Test Wallet" }).click();
    await page.getByText("Wallet USDC: 60.00").waitFor();
    await page.getByRole("button", { name: "Post the 50.00 USDC bond" }).click();
    await page.locator('.dash-steps[data-step="active"]').waitFor({ timeout: 60_000 });
    await agent.waitFor("host active: bond of 50 USDC received");
    await page.locator('[data-stat="status"] .dash-stat__value', { hasText: "active" }).waitFor();
    await shoot(page, "dashboard-provider-bonded-desktop");
    expect(await bondHeld(host.providerId)).toBe(50_000_000n);
    await expect(solana.getTokenBalance(walletAddress, solana.usdcMint)).resolves.toBe(10_000_000n);

    // A job served: its earning (80% of 1000 × $0.10 + 4 × $0.40 per 1M … as the gateway counts it) is listed.
    const token = await gateway.createFundedToken(10_000_000n);
    const openai = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const { response } = await openai.chat.completions
      .create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "earn [fake:tokens=5000]" }] },
        { headers: { "X-Pod-Routing-Mode": "marketplace-only" } },
      )
      .withResponse();
    const requestId = response.headers.get("x-request-id") ?? "";
    await agent.waitFor(/job \S+ gpt-4o-mini: done 200/);
    const earning = page.getByTestId("earnings-table").locator("tbody tr").first();
    await earning.getByText("gpt-4o-mini").waitFor({ timeout: 20_000 });
    await expect(earning.locator("td").nth(1).textContent()).resolves.toBe("Job earning");
    if (requestId !== "")
      await expect(earning.locator("code").getAttribute("title")).resolves.toBe(requestId);
    const balance = (await (
      await fetch(`${gateway.baseUrl}/v1/host/balance`, {
        headers: { authorization: `Bearer ${host.hostToken}` },
      })
    ).json()) as { usdc_balance: number };
    expect(balance.usdc_balance).toBeGreaterThan(0);
    await page
      .getByTestId("agent-summary")
      .getByText(/[\d.]+ tokens\/s/)
      .waitFor({ timeout: 20_000 });

    // The limits are shown before submitting; an amount below the minimum is refused on the page.
    await expect(page.getByTestId("withdraw-limits").textContent()).resolves.toContain(
      "Minimum $0.001 per withdrawal.",
    );
    await page.getByLabel("Amount (USDC)").fill("0.0005");
    await expect(page.getByTestId("withdraw-problem").textContent()).resolves.toBe(
      "The minimum withdrawal is $0.001.",
    );
    await expect(page.getByRole("button", { name: "Request withdrawal" }).isDisabled()).resolves.toBe(true);
    // The page reads balance and transactions side by side, so the earning can be listed one
    // refresh (5 s) before the balance that includes it: wait for the balance, not a single read.
    await page.getByLabel("Amount (USDC)").fill("5");
    await page
      .getByTestId("withdraw-problem")
      .filter({ hasText: /^At most \$0\.\d+ can be withdrawn now\.$/ })
      .waitFor({ timeout: 20_000 });
    await page.getByLabel("Amount (USDC)").fill("0.001");
    await page.getByRole("button", { name: "Request withdrawal" }).click();
    await expect(page.getByTestId("payout-status").textContent()).resolves.toBe(
      "Withdrawal of $0.001 requested.",
    );
    // The payout worker pays it on the local chain; the page shows the state and the transaction's link.
    const paid = page.locator('[data-testid="payouts-table"] tr[data-status="confirmed"]');
    await paid.waitFor({ timeout: 60_000 });
    await expect(paid.locator("a").getAttribute("href")).resolves.toMatch(
      /^https:\/\/explorer\.solana\.com\/tx\/\w+\?cluster=devnet$/,
    );
    await expect(solana.getTokenBalance(walletAddress, solana.usdcMint)).resolves.toBe(10_001_000n);
    await shoot(page, "dashboard-provider-desktop");
    await page.getByTestId("trust-summary").filter({ hasText: "Good standing: routed as usual." }).waitFor();

    // The agent stops: within a refresh the page reads offline and when it was last seen, and
    // neither the status nor the trust card says the host is served.
    await agent.stop();
    agents.splice(agents.indexOf(agent), 1);
    await page
      .locator('[data-stat="status"] .dash-stat__value', { hasText: "active, agent offline" })
      .waitFor({ timeout: 20_000 });
    await expect(page.getByTestId("agent-summary").textContent()).resolves.toMatch(
      /^Offline, last seen \d+ s ago \([\d-]+ [\d:]+ UTC\): no job reaches this host/,
    );
    await expect(page.getByTestId("trust-summary").textContent()).resolves.toMatch(
      /^Good standing: not routed while no agent is connected\./,
    );
    expect(watched.errors.filter((line) => !/status of 401 /.test(line))).toEqual([]);
    await watched.context.close();

    const dark = await openDevice(browser, gateway.baseUrl, { dark: true });
    await signIn(dark.page, gateway.baseUrl, host.hostToken);
    await dark.page.getByTestId("earnings-table").waitFor();
    await shoot(dark.page, "dashboard-provider-desktop-dark");
    expect(dark.errors).toEqual([]);
    await dark.context.close();
  }, 300_000);

  it("a second operator posts the bond with pod-agent bond while a phone watches it arrive", async () => {
    const keys = Keypair.generate();
    const owner = address(keys.publicKey.toBase58());
    await solana.airdrop(owner, 1_000_000_000n);
    await solana.mintUsdc(owner, 50_000_000n);
    const keypairPath = join(dir, "second-operator.json");
    writeFileSync(keypairPath, JSON.stringify(Array.from(keys.secretKey)));
    const host = await enroll("keypair-host", owner);

    const watched = await openDevice(browser, gateway.baseUrl, { width: phone.width, dark: true });
    const { page } = watched;
    await signIn(page, gateway.baseUrl, host.hostToken);
    await page.getByText("No Solana wallet in this browser.").waitFor();
    await expect(page.getByTestId("agent-summary").textContent()).resolves.toMatch(
      /^Offline, never seen: no job reaches this host/,
    );
    await shoot(page, "dashboard-provider-pending-phone-dark");

    const output = await podAgent([
      "bond",
      "--config",
      host.configPath,
      "--keypair",
      keypairPath,
      "--wait",
      "60",
    ]);
    expect(output).toContain(`host ${host.providerId} is active: bond of 50 USDC received`);
    await page
      .locator('[data-stat="status"] .dash-stat__value', { hasText: "active" })
      .waitFor({ timeout: 20_000 });
    await expect(page.getByTestId("bond-summary").textContent()).resolves.toMatch(
      /^\$50\.00 of \$50\.00 received\. The host is active and can be routed to/,
    );
    const agent = startAgent(host.configPath);
    agents.push(agent);
    await agent.waitFor("serving gpt-4o-mini");
    await page.getByTestId("agent-models").waitFor({ timeout: 20_000 });
    await shoot(page, "dashboard-provider-phone-dark");
    expect(await bondHeld(host.providerId)).toBe(50_000_000n);
    expect(watched.errors).toEqual([]);
    await watched.context.close();
  }, 180_000);

  it("no provider page is wider than a 360 px screen, and both pass the contrast check, light or dark, signed in or not", async () => {
    const problems: string[] = [];
    for (const dark of [false, true]) {
      for (const width of [360, desktop.width]) {
        const theme = dark ? "dark" : "light";
        const watched = await openDevice(browser, gateway.baseUrl, { width, height: 780, dark });
        const { page } = watched;
        await page.goto(`${gateway.baseUrl}/dashboard/provider`);
        await page.getByLabel("Host token").waitFor();
        const signInPage = await overflows(page);
        expect(signInPage.scroll, `sign-in page: ${signInPage.outside.join(", ")}`).toBeLessThanOrEqual(
          signInPage.viewport,
        );
        for (const violation of await axeViolations(page))
          problems.push(`sign-in ${width}px ${theme}: ${violation}`);
        await signIn(page, gateway.baseUrl, firstHostToken);
        await page.getByTestId("payouts-table").waitFor();
        // Times as the person's pages show them: UTC, ISO order, 24-hour, whatever the browser's locale.
        const times = await page.locator("main .dash-table__time").allTextContents();
        expect(times.length).toBeGreaterThan(1);
        for (const time of times) expect(time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        await expect(page.locator("main").textContent()).resolves.not.toMatch(/\d (AM|PM)\b/);
        const cockpit = await overflows(page);
        expect(cockpit.scroll, `signed-in page: ${cockpit.outside.join(", ")}`).toBeLessThanOrEqual(
          cockpit.viewport,
        );
        for (const violation of await axeViolations(page))
          problems.push(`cockpit ${width}px ${theme}: ${violation}`);
        if (width === 360) await shoot(page, `dashboard-provider-360-${theme}`);
        expect(watched.errors).toEqual([]);
        await watched.context.close();
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  }, 120_000);
});
