import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatUsd } from "../../components/dashboard/format";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { inferenceClient } from "../helpers/inference-client";
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
import { axeViolations, horizontalOverflow } from "./page-checks";

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
        const response = await inferenceClient(gateway, key).chat({ maxTokens: 3 });
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
      // The row says what is left of the limit, or that it is reached: never the limit as if unspent.
      const spent = Number(/^\$([0-9.]+)/.exec((await spentCell.textContent()) ?? "")?.[1]);
      const left = Math.round((0.00005 - spent) * 1e6);
      if (left <= 0) await spentCell.getByTestId("key-limit-reached").waitFor();
      else
        await expect(spentCell.getByTestId("key-limit-left").textContent()).resolves.toBe(
          `${formatUsd(left)} left`,
        );
      await shoot(page, `dashboard-keys-limited-${viewport.name}`);
      // Lowered below what it spent, the limit is reached: the row says so, and the key is refused.
      const keyRow = page.locator(`tr[data-status="active"]`).filter({ hasText: "CI bot" });
      await keyRow.getByRole("button", { name: "Change limit" }).click();
      await keyRow.getByLabel("Limit for CI bot in USD (empty for none)").fill("0.00001");
      await keyRow.getByRole("button", { name: "Save" }).click();
      await spentCell.getByTestId("key-limit-reached").waitFor();
      await expect(spentCell.getByTestId("key-limit-reached").textContent()).resolves.toBe("Limit reached");
      const over = await inferenceClient(gateway, key).chat({ maxTokens: 3, content: "hi" });
      expect(over.status).toBe(402);
      expect(((await over.json()) as { error: { message: string } }).error.message).toMatch(
        /^key limit reached: this key may spend \$0\.00001 USD per day \(UTC\) and has spent \$0\.0000\d+/,
      );
      if (viewport.name === "phone-dark") expect(await horizontalOverflow(page)).toBeUndefined();
      await shoot(page, `dashboard-keys-limit-reached-${viewport.name}`);

      // Revoking it from the page refuses the key from then on.
      page.once("dialog", (dialog) => void dialog.accept());
      await page.locator("tr").filter({ hasText: "CI bot" }).getByRole("button", { name: "Revoke" }).click();
      await page.locator(`tr[data-status="revoked"]`).filter({ hasText: "CI bot" }).waitFor();
      expect((await fetch(`${gateway.baseUrl}/proxy/${key}/balance`)).status).toBe(401);
      await closeClean(watched);
    }, 240_000);
  }

  it("auto top-up: saves a card, turns it on, and a crowd of requests crossing the threshold charges the card once", async () => {
    // $0.002 of balance and a $0.00185 threshold: sixty small requests sent at once cross it half-way.
    const token = await gateway.createFundedToken(2_000n);
    const watched = await openDevice(browser, gateway.baseUrl);
    const { page } = watched;
    await signIn(page, token);
    await page
      .getByRole("navigation", { name: "Dashboard" })
      .getByRole("link", { name: "Alerts & top-up" })
      .click();
    await page.getByRole("heading", { name: "Alerts and auto top-up", level: 1 }).waitFor();
    // Off by default, and nothing to turn on without a card.
    await expect(page.getByRole("checkbox", { name: "Top up automatically" }).isDisabled()).resolves.toBe(
      true,
    );
    await page.getByRole("button", { name: "Save a card with Stripe" }).click();
    await page.waitForURL((url) => url.href.startsWith(stripe.apiBase));
    await page.getByRole("button", { name: "Save card" }).click();
    await page.waitForURL(/\/dashboard\/billing\?card=saved/);
    await page.getByText("Card saved with Stripe.").waitFor();
    // The webhook saves the card; the page shows it once it has.
    for (let attempt = 0; attempt < 20; attempt += 1) {
      if (await page.getByTestId("saved-card").isVisible()) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
      await page.reload();
    }
    await expect(page.getByTestId("saved-card").textContent()).resolves.toBe("visa ····4242");

    await page.getByRole("checkbox", { name: "Top up automatically" }).check();
    await page.getByLabel("When the balance is below (USD)").fill("0.00185");
    await page.getByLabel("Charge the card (USD)").fill("5");
    await page.getByLabel("At most per month (USD)").fill("10");
    await page.getByRole("button", { name: "Save auto top-up" }).click();
    await page.getByText("Auto top-up is on.").waitFor();
    // The note asking to turn auto top-up on has said its piece, now and after a reload.
    await expect(page.getByText("Card saved with Stripe.").count()).resolves.toBe(0);
    await page.reload();
    await expect
      .poll(() => page.getByRole("checkbox", { name: "Top up automatically" }).isChecked())
      .toBe(true);
    await expect(page.getByText("Card saved with Stripe.").count()).resolves.toBe(0);
    await shoot(page, "dashboard-auto-top-up-on-desktop-light");

    const intentsBefore = stripe.paymentIntents.size;
    const chargeRequestsBefore = stripe.requests.filter(
      (entry) => entry.path === "/v1/payment_intents",
    ).length;
    const statuses = await Promise.all(
      Array.from({ length: 60 }, async (_, index) => {
        const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: "gpt-4o-mini",
            max_tokens: 3,
            messages: [{ role: "user", content: `r${index} [fake:tokens=3]` }],
          }),
        });
        await response.text();
        return response.status;
      }),
    );
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(30);

    // The charge shows on the page once the background check has made it (the person reloads).
    const paid = page.getByTestId("top-up-charges").locator('tr[data-status="succeeded"]');
    for (let attempt = 0; attempt < 30 && (await paid.count()) === 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await page.reload();
      await page.getByRole("heading", { name: "Auto top-up", exact: true }).waitFor();
    }
    await expect(paid.count()).resolves.toBe(1);
    await expect(paid.textContent()).resolves.toContain("$5.00");
    await expect(paid.getByRole("link", { name: "Receipt" }).getAttribute("href")).resolves.toMatch(
      /\/receipts\/ch_/,
    );
    await page.getByText("Charged this month: $5.00 of $10.00.").waitFor();
    // The webhook that follows the charge was answered, and every check the charges started has
    // run: neither credited nor charged again.
    const intent = [...stripe.paymentIntents.values()].at(-1);
    expect((await stripe.delivered("payment_intent.succeeded", String(intent?.id))).status).toBe(200);
    await gateway.app.balanceWatch.idle();
    expect(stripe.paymentIntents.size - intentsBefore).toBe(1);
    expect(stripe.requests.filter((entry) => entry.path === "/v1/payment_intents").length).toBe(
      chargeRequestsBefore + 1,
    );
    const balance = await gateway.balanceOf(token);
    expect(balance.balance).toBeGreaterThan(5_000_000n);
    expect(balance.balance).toBeLessThan(5_002_000n);
    await shoot(page, "dashboard-auto-top-up-charged-desktop-light");

    // Activity on the overview lists the credit once, with Stripe's receipt.
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Overview" }).click();
    const credits = page.locator('tr[data-kind="card_auto_top_up"]');
    await credits.first().waitFor();
    await expect(credits.count()).resolves.toBe(1);
    await expect(credits.textContent()).resolves.toContain("Auto top-up (card)");
    // Said once: the credit's reason ("auto top-up") adds nothing to its label.
    await expect(credits.locator("td").nth(1).textContent()).resolves.toBe("Auto top-up (card) · Receipt");
    await expect(credits.textContent()).resolves.toContain("+$5.00");
    await expect(credits.getByRole("link", { name: "Receipt" }).count()).resolves.toBe(1);
    await shoot(page, "dashboard-auto-top-up-activity-desktop-light");
    await closeClean(watched);

    // The same account on a 360 px phone in dark: the charges table fits.
    const phoneView = await openDevice(browser, gateway.baseUrl, { ...narrowPhone, dark: true });
    await signIn(phoneView.page, token);
    await phoneView.page.goto(`${gateway.baseUrl}/dashboard/billing`);
    await phoneView.page.getByTestId("top-up-charges").waitFor();
    expect(await horizontalOverflow(phoneView.page)).toBeUndefined();
    await shoot(phoneView.page, "dashboard-auto-top-up-charged-360-dark");
    await closeClean(phoneView);
  }, 240_000);

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
      { name: "billing", path: "/dashboard/billing", ready: "Alerts and auto top-up" },
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
          await shoot(
            page,
            `dashboard-${entry.name}-${width === narrowPhone.width ? "360" : "desktop"}-${theme}`,
          );
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
    for (const violation of await axeViolations(page)) problems.push(`${label}: contrast ${violation}`);
  }
});
