import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { type FakeStripe, startFakeStripe } from "../helpers/stripe/fake-stripe";
import {
  desktop,
  hasChromium,
  launchChromium,
  openDevice,
  shoot,
  type WatchedPage,
} from "./dashboard-browser";
import { ensureBuild } from "./next-server";
import { contrastViolations, horizontalOverflow } from "./page-checks";

/**
 * The account side of the dashboard in Chromium, as a person uses it: a second API key with a
 * daily limit that refuses the request past it; and every dashboard page at 360 px (nothing
 * wider than the screen) and at desktop width, in light and dark, through axe-core's contrast check.
 */

const webhookSecret = "whsec_dashboard_accounts";
const narrowPhone = { width: 360, height: 780 };

if (!hasChromium)
  console.warn("dashboard accounts e2e skipped: /usr/bin/chromium is missing (apt-get install -y chromium)");

describe.skipIf(!hasChromium)("dashboard accounts in Chromium", () => {
  let gateway: TestGateway;
  let stripe: FakeStripe;
  let browser: Browser;

  beforeAll(async () => {
    ensureBuild();
    stripe = await startFakeStripe({ webhookSecret });
    gateway = await startTestGateway({
      withNext: true,
      lease: true,
      env: {
        STRIPE_SECRET_KEY: "sk_test_accounts",
        STRIPE_PUBLISHABLE_KEY: "pk_test_accounts",
        STRIPE_WEBHOOK_SECRET: webhookSecret,
        STRIPE_API_BASE: stripe.apiBase,
      },
    });
    stripe.setWebhookUrl(`${gateway.baseUrl}/v1/webhooks/stripe`);
    browser = await launchChromium();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await stripe?.close();
  });

  async function signIn(page: Page, token: string): Promise<void> {
    await page.goto(`${gateway.baseUrl}/dashboard#token=${token}`);
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
  }

  async function closeClean(watched: WatchedPage): Promise<void> {
    expect(watched.errors, watched.errors.join("\n")).toEqual([]);
    await watched.context.close();
  }

  const viewports = [
    { name: "desktop-light", width: desktop.width, dark: false },
    { name: "phone-dark", width: narrowPhone.width, dark: true },
  ] as const;

  for (const viewport of viewports) {
    it(`creates a second API key with a daily limit that refuses the request past it (${viewport.name})`, async () => {
      const token = await gateway.createFundedToken(5_000_000n);
      const watched = await openDevice(browser, gateway.baseUrl, {
        width: viewport.width,
        dark: viewport.dark,
      });
      const { page } = watched;
      await signIn(page, token);
      await page
        .getByRole("navigation", { name: "Dashboard" })
        .getByRole("link", { name: "API keys" })
        .click();
      await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
      await page.getByText("No keys yet").waitFor();
      await page.getByLabel("Label").fill("CI bot");
      await page.getByLabel("Spend limit in USD (optional)").fill("0.00005");
      await page.getByLabel("Per").selectOption("day");
      await page.getByRole("button", { name: "Create key" }).click();
      const field = page.getByRole("textbox", { name: "New API key" });
      await field.waitFor();
      const key = await field.inputValue();
      expect(key).toMatch(/^[0-9a-f-]{36}$/);
      expect(key).not.toBe(token);
      await page.getByRole("button", { name: "Copy key" }).click();
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(key);
      const row = page.locator(`tr[data-status="active"]`).filter({ hasText: "CI bot" });
      await expect(row.textContent()).resolves.toContain("$0.00005 per day");
      await shoot(page, `dashboard-keys-created-${viewport.name}`);
      expect(await horizontalOverflow(page)).toBeUndefined();

      // The person's app calls with the key until the day's limit refuses it.
      let served = 0;
      let refused: { status: number; code: string } | undefined;
      for (let attempt = 0; attempt < 40 && refused === undefined; attempt += 1) {
        const response = await fetch(`${gateway.baseUrl}/proxy/${key}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: "gpt-4o-mini",
            max_tokens: 3,
            messages: [{ role: "user", content: "hi [fake:tokens=3]" }],
          }),
        });
        const body = (await response.json()) as { error?: { code: string } };
        if (response.status === 200) served += 1;
        else refused = { status: response.status, code: body.error?.code ?? "" };
      }
      expect(served).toBeGreaterThan(0);
      expect(refused).toEqual({ status: 402, code: "key_limit_reached" });
      // The token itself still works.
      const own = await fetch(`${gateway.baseUrl}/proxy/${token}/balance`);
      expect(own.status).toBe(200);

      await page.reload();
      const spentCell = page
        .locator(`tr[data-status="active"]`)
        .filter({ hasText: "CI bot" })
        .locator("td")
        .nth(2);
      await expect(spentCell.textContent()).resolves.toMatch(/^\$0\.0000[1-5]/);
      await shoot(page, `dashboard-keys-limited-${viewport.name}`);

      // Revoking it from the page refuses the key from then on.
      page.once("dialog", (dialog) => void dialog.accept());
      await page.locator("tr").filter({ hasText: "CI bot" }).getByRole("button", { name: "Revoke" }).click();
      await page.locator(`tr[data-status="revoked"]`).filter({ hasText: "CI bot" }).waitFor();
      expect((await fetch(`${gateway.baseUrl}/proxy/${key}/balance`)).status).toBe(401);
      await closeClean(watched);
    }, 240_000);
  }

  it("no dashboard page is wider than a 360 px screen, and every one passes the contrast check in light and dark", async () => {
    const token = await gateway.createFundedToken(20_000_000n);
    // Something in every table: a call, and a key.
    await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        max_tokens: 3,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    await fetch(`${gateway.baseUrl}/proxy/${token}/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ label: "laptop", limit: { amount_microunits: 5_000_000, period: "month" } }),
    });
    const pages = [
      { name: "overview", path: "/dashboard", ready: "Overview" },
      { name: "keys", path: "/dashboard/keys", ready: "API keys" },
      { name: "fund", path: "/dashboard/fund", ready: "Add funds" },
      {
        name: "card-return",
        path: "/dashboard/fund/return?session_id=cs_test_unknown",
        ready: "Card payment",
      },
      { name: "provider", path: "/dashboard/provider", ready: undefined },
    ];
    const problems: string[] = [];
    for (const dark of [false, true]) {
      for (const width of [narrowPhone.width, desktop.width]) {
        const watched = await openDevice(browser, gateway.baseUrl, { width, dark });
        const { page } = watched;
        const theme = dark ? "dark" : "light";
        // Signed out first: the sign-in page is a dashboard page too.
        await page.goto(`${gateway.baseUrl}/dashboard`);
        await page.getByRole("button", { name: "Create a token" }).waitFor();
        await check(page, `signed-out ${width}px ${theme}`, width, problems);
        await signIn(page, token);
        for (const entry of pages) {
          await page.goto(`${gateway.baseUrl}${entry.path}`);
          if (entry.ready) await page.getByRole("heading", { name: entry.ready, level: 1 }).waitFor();
          await page.waitForLoadState("networkidle");
          await check(page, `${entry.name} ${width}px ${theme}`, width, problems);
          if (width === narrowPhone.width) await shoot(page, `dashboard-${entry.name}-360-${theme}`);
        }
        await watched.context.close();
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  }, 600_000);

  async function check(page: Page, label: string, width: number, problems: string[]): Promise<void> {
    if (width <= narrowPhone.width) {
      const overflow = await horizontalOverflow(page);
      if (overflow !== undefined) problems.push(`${label}: ${overflow}`);
    }
    for (const violation of await contrastViolations(page)) problems.push(`${label}: contrast ${violation}`);
  }
});
