import { type Address, address } from "@solana/kit";
import { Keypair, VersionedTransaction } from "@solana/web3.js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOLANA_DEVNET_CAIP2 } from "../../lib/chains/solana/constants";
import { scanDeposits } from "../../lib/deposits/solana/deposit-watcher";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { type LocalSolana, startLocalSolana } from "../helpers/solana/local-solana";
import { hasChromium, launchChromium, openDevice, phone, shoot, type WatchedPage } from "./dashboard-browser";
import { ensureBuild } from "./next-server";
import { horizontalOverflow } from "./page-checks";
import { testWalletScript } from "./test-solana-wallet";

/**
 * USDC from a Solana wallet, in a real Chromium: a Wallet Standard test wallet (registered in the
 * page, signing in Node with a local keypair) connects on the fund page, the page builds the
 * TransferChecked + Memo deposit, the wallet signs, the page sends it to the local chain, and the
 * gateway's deposit watcher credits the token, which the page then shows.
 */

const usdc = (whole: number) => BigInt(whole) * 1_000_000n;

if (!hasChromium)
  console.warn("wallet deposit e2e skipped: /usr/bin/chromium is missing (apt-get install -y chromium)");

describe.skipIf(!hasChromium)("dashboard: USDC deposit from a Solana wallet", () => {
  let solana: LocalSolana;
  let gateway: TestGateway;
  let browser: Browser;
  let depositOwner: Address;
  const payer = Keypair.generate();
  const payerAddress = address(payer.publicKey.toBase58());

  beforeAll(async () => {
    ensureBuild();
    solana = await startLocalSolana();
    depositOwner = address(Keypair.generate().publicKey.toBase58());
    await solana.airdrop(payerAddress, 1_000_000_000n);
    await solana.mintUsdc(payerAddress, usdc(25));
    await solana.createAta(depositOwner, solana.usdcMint);
    gateway = await startTestGateway({
      withNext: true,
      maintenance: true,
      env: {
        SOLANA_DEPOSIT_ADDRESS: depositOwner,
        SOLANA_RPC_URL: solana.rpcUrl,
        SOLANA_NETWORK: SOLANA_DEVNET_CAIP2,
        SOLANA_DEPOSIT_COMMITMENT: "confirmed",
        SOLANA_DEPOSIT_POLL_SECONDS: "1",
      },
    });
    browser = await launchChromium();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await solana?.close();
  });

  async function walletDevice(width?: number): Promise<WatchedPage> {
    const watched = await openDevice(browser, gateway.baseUrl, width === undefined ? {} : { width });
    await watched.page.exposeFunction("podTestWalletSign", (bytes: number[]) => {
      const transaction = VersionedTransaction.deserialize(Uint8Array.from(bytes));
      transaction.sign([payer]);
      return Array.from(transaction.serialize());
    });
    await watched.page.addInitScript(testWalletScript(payerAddress, Array.from(payer.publicKey.toBytes())));
    return watched;
  }

  it("connects a Wallet Standard wallet, deposits 7.5 USDC with the memo, and shows the credit", async () => {
    const registered = (await (await fetch(`${gateway.baseUrl}/v1/register`, { method: "POST" })).json()) as {
      api_token: string;
      deposit_code: string;
    };
    const token = registered.api_token;
    const watched = await walletDevice();
    const { page } = watched;
    await page.goto(`${gateway.baseUrl}/dashboard#token=${token}`);
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await page.goto(`${gateway.baseUrl}/dashboard/fund`);
    await page.getByRole("heading", { name: "USDC on Solana" }).waitFor();
    await page.getByRole("button", { name: "Connect Pod Test Wallet" }).click();
    await expect(page.getByTestId("wallet-address").textContent()).resolves.toBe(payerAddress);
    await page.getByText("Wallet USDC: 25.00").waitFor();
    await page.getByLabel("Amount (USDC)").fill("7.5");
    await shoot(page, "dashboard-fund-usdc-desktop");
    await page.getByRole("button", { name: "Deposit 7.50 USDC" }).click();
    await page.locator('.dash-steps[data-step="credited"]').waitFor({ timeout: 60_000 });
    await expect(page.getByTestId("new-balance").textContent()).resolves.toBe("$7.50");
    await shoot(page, "dashboard-fund-usdc-credited-desktop");

    // On chain: the payer sent 7.5 USDC to the deposit wallet; in the ledger: credited exactly once.
    await expect(solana.getTokenBalance(payerAddress, solana.usdcMint)).resolves.toBe(usdc(25) - 7_500_000n);
    await expect(solana.getTokenBalance(depositOwner, solana.usdcMint)).resolves.toBe(7_500_000n);
    expect((await gateway.balanceOf(token)).available).toBe(7_500_000n);
    // A further pass of the watcher (this test's, once the loop's lease is free) credits nothing.
    let again = await scanDeposits(gateway.app, { holder: "page-test" });
    for (let attempt = 0; attempt < 50 && !again.ran; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await scanDeposits(gateway.app, { holder: "page-test" });
    }
    expect(again).toMatchObject({ ran: true, credited: 0 });
    expect((await gateway.balanceOf(token)).available).toBe(7_500_000n);
    expect(watched.errors, watched.errors.join("\n")).toEqual([]);
    await watched.context.close();

    // The same page on a phone, signed in with the same token.
    const phoneView = await walletDevice(phone.width);
    await phoneView.page.goto(`${gateway.baseUrl}/dashboard#token=${token}`);
    await phoneView.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await phoneView.page.goto(`${gateway.baseUrl}/dashboard/fund`);
    await phoneView.page.getByRole("button", { name: "Connect Pod Test Wallet" }).click();
    await phoneView.page.getByText("Wallet USDC: 17.50").waitFor();
    // The connected wallet's address wraps inside a 360 px page.
    await expect(horizontalOverflow(phoneView.page)).resolves.toBeUndefined();
    await shoot(phoneView.page, "dashboard-fund-usdc-phone");
    expect(phoneView.errors, phoneView.errors.join("\n")).toEqual([]);
    await phoneView.context.close();
  }, 240_000);

  it("on an Android browser without a wallet, the Mobile Wallet Adapter entry is not offered and nothing fails", async () => {
    // wallet-adapter-react adds a Mobile Wallet Adapter on Android browsers with no injected wallet;
    // the install replaces that package with an Unsupported stub (stubs/solana-mobile-wallet-adapter),
    // which is constructed here and must neither show up as a wallet nor throw.
    const registered = (await (await fetch(`${gateway.baseUrl}/v1/register`, { method: "POST" })).json()) as {
      api_token: string;
    };
    const android = await openDevice(browser, gateway.baseUrl, {
      width: phone.width,
      userAgent:
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
    });
    await android.page.goto(`${gateway.baseUrl}/dashboard#token=${registered.api_token}`);
    await android.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await android.page.goto(`${gateway.baseUrl}/dashboard/fund`);
    await android.page.getByText("No Solana wallet found in this browser.").waitFor();
    // The address to send to by hand wraps inside a 360 px page and has its own copy button.
    await expect(horizontalOverflow(android.page)).resolves.toBeUndefined();
    await android.page.getByRole("button", { name: "Copy deposit address" }).click();
    const address = await android.page.getByTestId("usdc-deposit-address").textContent();
    await expect(android.page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(address);
    const mobileEntries = android.page.getByRole("button", { name: /Mobile Wallet Adapter/ });
    await expect(mobileEntries.count()).resolves.toBe(0);
    expect(android.errors, android.errors.join("\n")).toEqual([]);
    await android.context.close();
  }, 120_000);
});
