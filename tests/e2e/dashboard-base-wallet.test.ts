import type { Browser } from "playwright-core";
import type { Address, Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anvilUnavailable, type LocalEvm, startLocalEvm } from "../helpers/evm/local-evm";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { hasChromium, launchChromium, openDevice, phone, shoot } from "./dashboard-browser";
import { ensureBuild } from "./next-server";
import { horizontalOverflow } from "./page-checks";

/**
 * The dashboard's "USDC on Base" panel in a real Chromium, with a browser wallet: an EIP-1193
 * provider injected into the page (announced through EIP-6963 and as window.ethereum) whose
 * eth_signTypedData_v4 signs with an anvil account's key. wagmi connects to it, the wallet
 * signs the deposit the gateway hands out, the gateway submits it to the local chain and the
 * token is credited once.
 */
const unavailable = hasChromium ? await anvilUnavailable() : "no /usr/bin/chromium";
if (unavailable) console.warn(`Base deposit browser test skipped: ${unavailable}`);

/** The page side of the test wallet; `podTestWalletSign` is bound to the test process. */
function walletScript(address: Address, chainId: number): string {
  return `(() => {
  const address = ${JSON.stringify(address)};
  const chainId = ${JSON.stringify(`0x${chainId.toString(16)}`)};
  const listeners = {};
  const provider = {
    async request({ method, params }) {
      switch (method) {
        case "eth_requestAccounts":
        case "eth_accounts":
          return [address];
        case "eth_chainId":
          return chainId;
        case "net_version":
          return String(parseInt(chainId, 16));
        case "wallet_switchEthereumChain":
        case "wallet_revokePermissions":
          return null;
        case "wallet_requestPermissions":
        case "wallet_getPermissions":
          return [{ parentCapability: "eth_accounts" }];
        case "eth_signTypedData_v4":
          return window.podTestWalletSign(params[0], params[1]);
        default:
          throw Object.assign(new Error("test wallet: " + method + " is not supported"), { code: 4200 });
      }
    },
    on(event, listener) {
      (listeners[event] ??= []).push(listener);
      return provider;
    },
    removeListener(event, listener) {
      listeners[event] = (listeners[event] ?? []).filter((entry) => entry !== listener);
      return provider;
    },
  };
  const info = {
    uuid: "5f0c7a8e-4c1e-4a57-9d0b-6a1f3e2b9c11",
    name: "Pod Test Wallet",
    icon: "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 8 8'%3E%3Crect width='8' height='8' fill='%23356'/%3E%3C/svg%3E",
    rdns: "dev.pod.test-wallet",
  };
  const announce = () =>
    window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }));
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
  window.ethereum = provider;
})();`;
}

/** eth_signTypedData_v4 on the test process side: the JSON typed data, signed by the anvil key. */
async function signTypedDataV4(account: PrivateKeyAccount, from: string, json: string): Promise<Hex> {
  if (from.toLowerCase() !== account.address.toLowerCase())
    throw new Error(`test wallet has no key for ${from}`);
  const typed = JSON.parse(json) as {
    domain: { name: string; version: string; chainId: number | string; verifyingContract: Address };
    types: Record<string, { name: string; type: string }[]>;
    primaryType: string;
    message: Record<string, string | number>;
  };
  const { EIP712Domain: _domainType, ...types } = typed.types;
  const message: Record<string, unknown> = {};
  for (const field of types[typed.primaryType] ?? []) {
    const value = typed.message[field.name];
    message[field.name] = field.type.startsWith("uint") ? BigInt(value ?? 0) : value;
  }
  return account.signTypedData({
    domain: { ...typed.domain, chainId: Number(typed.domain.chainId) },
    types,
    primaryType: typed.primaryType,
    message,
  });
}

describe.skipIf(unavailable !== undefined)("dashboard: USDC on Base with a browser wallet", () => {
  let evm: LocalEvm;
  let gateway: TestGateway;
  let browser: Browser;
  let depositAddress: Address;

  beforeAll(async () => {
    ensureBuild();
    evm = await startLocalEvm();
    depositAddress = (await evm.fundedAccount()).account.address;
    const settler = await evm.fundedAccount({ wei: 10n ** 18n });
    gateway = await startTestGateway({
      withNext: true,
      env: {
        BASE_DEPOSIT_ADDRESS: depositAddress,
        X402_BASE_NETWORK: evm.network,
        BASE_RPC_URL: evm.rpcUrl,
        X402_BASE_SETTLER_KEY: settler.key,
      },
    });
    browser = await launchChromium();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await evm?.close();
  });

  it("connects the wallet, signs the deposit and shows the credit; the token is credited once", async () => {
    const { token } = await gateway.register();
    const { account } = await evm.fundedAccount({ usdc: 5_000_000n });
    const watched = await openDevice(browser, gateway.baseUrl);
    const { page, context } = watched;
    const signed: string[] = [];
    await context.exposeFunction("podTestWalletSign", async (from: string, json: string) => {
      signed.push(json);
      return signTypedDataV4(account, from, json);
    });
    await context.addInitScript(walletScript(account.address, evm.chainId));

    await page.goto(`${gateway.baseUrl}/dashboard#token=${token}`);
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await page.goto(`${gateway.baseUrl}/dashboard/fund`);
    await page.getByRole("heading", { name: "USDC on Base" }).waitFor();
    await page.getByRole("button", { name: "Connect Pod Test Wallet" }).click();
    await expect(page.getByTestId("evm-address").textContent({ timeout: 20_000 })).resolves.toBe(
      account.address,
    );
    await page.getByLabel("Amount (USDC on Base)").fill("2.5");
    await page.getByRole("button", { name: "Deposit 2.50 USDC on Base" }).click();
    await expect(page.getByTestId("base-new-balance").textContent({ timeout: 60_000 })).resolves.toBe(
      "$2.50",
    );
    await expect(page.getByText("Credited to your balance").isVisible()).resolves.toBe(true);
    await shoot(page, "dashboard-base-deposit-desktop");

    expect(signed).toHaveLength(1);
    expect(JSON.parse(signed[0] ?? "{}")).toMatchObject({
      primaryType: "TransferWithAuthorization",
      message: { from: account.address.toLowerCase(), to: depositAddress.toLowerCase(), value: "2500000" },
    });
    expect((await gateway.balanceOf(token)).balance).toBe(2_500_000n);
    expect(await evm.usdcBalance(depositAddress)).toBe(2_500_000n);
    expect(await evm.usdcBalance(account.address)).toBe(2_500_000n);
    expect(watched.errors, watched.errors.join("\n")).toEqual([]);
    await context.close();

    // The same page on a phone: the connected wallet's address wraps inside a 360 px page.
    const phoneView = await openDevice(browser, gateway.baseUrl, { width: phone.width });
    await phoneView.context.addInitScript(walletScript(account.address, evm.chainId));
    await phoneView.page.goto(`${gateway.baseUrl}/dashboard#token=${token}`);
    await phoneView.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await phoneView.page.goto(`${gateway.baseUrl}/dashboard/fund`);
    await phoneView.page.getByRole("button", { name: "Connect Pod Test Wallet" }).click();
    await phoneView.page.getByTestId("evm-address").waitFor({ timeout: 20_000 });
    await expect(horizontalOverflow(phoneView.page)).resolves.toBeUndefined();
    await shoot(phoneView.page, "dashboard-fund-base-phone");
    expect(phoneView.errors, phoneView.errors.join("\n")).toEqual([]);
    await phoneView.context.close();
  }, 180_000);
});
