import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { createMarketplaceFixture, type MarketplaceFixture } from "../helpers/marketplace-fixture";
import { scriptedHost, serveHonestJob } from "../helpers/scripted-host";
import { type LocalSolana, startLocalSolana } from "../helpers/solana/local-solana";
import { keyPairWithSecret } from "../helpers/x402-chain";
import { hasChromium, launchChromium, openDevice, phone, shoot } from "./dashboard-browser";
import { ensureBuild } from "./next-server";

/**
 * The provider page in Chromium: a host that earned from one marketplace job signs in with its
 * host token, sees its status, bond and earnings, and requests a withdrawal from the page.
 */

if (!hasChromium)
  console.warn("provider dashboard e2e skipped: /usr/bin/chromium is missing (apt-get install -y chromium)");

describe.skipIf(!hasChromium)("dashboard: provider page", () => {
  let solana: LocalSolana;
  let gateway: TestGateway;
  let market: MarketplaceFixture;
  let browser: Browser;

  beforeAll(async () => {
    ensureBuild();
    solana = await startLocalSolana();
    const payout = await keyPairWithSecret();
    gateway = await startTestGateway({
      withNext: true,
      env: {
        // Earnings are withdrawable at once here; maturity has its own tests (slashing.test.ts).
        HOST_EARNINGS_MATURITY_SECONDS: "0",
        SOLANA_RPC_URL: solana.rpcUrl,
        SOLANA_NETWORK: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
        HOST_PAYOUT_SECRET: payout.secret,
        HOST_WITHDRAW_MIN_MICROUNITS: "1000",
      },
    });
    market = createMarketplaceFixture(gateway);
    browser = await launchChromium();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await market?.cleanup();
    await gateway?.close();
    await solana?.close();
  });

  it("signs in with the host token, shows status, bond and earnings, and requests a withdrawal", async () => {
    const { host, agent } = await scriptedHost(gateway, market);
    await serveHonestJob(gateway, agent, await gateway.createFundedToken(100_000_000n));
    agent.close();

    const watched = await openDevice(browser, gateway.baseUrl);
    const { page } = watched;
    await page.goto(`${gateway.baseUrl}/dashboard/provider`);
    await page.getByLabel("Host token").fill("not-a-host-token");
    await page.getByRole("button", { name: "Open provider dashboard" }).click();
    await page.locator(".dash-alert--error").waitFor();
    await page.getByLabel("Host token").fill(host.hostToken);
    await page.getByRole("button", { name: "Open provider dashboard" }).click();
    await page.getByRole("heading", { name: "Bond" }).waitFor();
    expect(page.url()).toBe(`${gateway.baseUrl}/dashboard/provider`);
    // 1000 × $2 + 200 × $10 per 1M = $0.004 charged; the host's 80% is $0.0032.
    await expect(page.locator('[data-stat="status"] .dash-stat__value').textContent()).resolves.toBe(
      "active",
    );
    await expect(page.locator('[data-stat="balance"] .dash-stat__value').textContent()).resolves.toBe(
      "$0.0032",
    );
    // The host's standing from the gateway's checks: nothing against it.
    await expect(page.getByTestId("trust-summary").textContent()).resolves.toMatch(
      /^Good standing: routed as usual/,
    );
    await shoot(page, "dashboard-provider-desktop");

    await page.getByLabel("Amount (USDC)").fill("0.002");
    await page.getByRole("button", { name: "Request withdrawal" }).click();
    await expect(page.getByTestId("payout-status").textContent()).resolves.toBe(
      "Withdrawal of $0.002 requested.",
    );
    // The page reloads the balance after the request: the payout shows as in progress.
    await page.locator('[data-stat="pending"] .dash-stat__value', { hasText: "$0.002" }).waitFor();
    const balance = (await (await host.call("GET", "/v1/host/balance")).json()) as {
      pending_withdrawals_usdc: number;
    };
    expect(balance.pending_withdrawals_usdc).toBe(2000);
    // More than is withdrawable is refused on the page, with the gateway's reason.
    await page.getByLabel("Amount (USDC)").fill("5");
    await page.getByRole("button", { name: "Request withdrawal" }).click();
    await page.locator(".dash-alert--error").waitFor();
    // The browser logs the refused calls (the wrong token's 401s, the too-large withdrawal's 402) itself.
    const expected = /status of (401|402) /;
    expect(watched.errors.filter((line) => !expected.test(line))).toEqual([]);
    await watched.context.close();

    const phoneView = await openDevice(browser, gateway.baseUrl, { width: phone.width, dark: true });
    await phoneView.page.goto(`${gateway.baseUrl}/dashboard/provider`);
    await phoneView.page.getByLabel("Host token").fill(host.hostToken);
    await phoneView.page.getByRole("button", { name: "Open provider dashboard" }).click();
    await phoneView.page.getByRole("heading", { name: "Withdraw" }).waitFor();
    await shoot(phoneView.page, "dashboard-provider-phone");
    await phoneView.context.close();
  }, 240_000);
});
