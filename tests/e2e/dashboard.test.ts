import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { type FakeStripe, startFakeStripe } from "../helpers/stripe/fake-stripe";
import {
  desktop,
  hasChromium,
  launchChromium,
  openDevice,
  phone,
  shoot,
  type WatchedPage,
} from "./dashboard-browser";
import { ensureBuild, repoRoot } from "./next-server";

/**
 * The dashboard in a real Chromium against a real gateway (Next pages served by server.ts):
 * sign up, sign in elsewhere, fund by card through the local Stripe fake, and make a call with
 * a snippet copied from the page. Screenshots land in tests/e2e/screenshots/.
 */

const webhookSecret = "whsec_dashboard_e2e";
/** Inside the repository so `import "openai"` resolves; never committed. */
const scratchDir = path.join(repoRoot, "node_modules/.cache/pod-dashboard-e2e");

if (!hasChromium)
  console.warn("dashboard e2e skipped: /usr/bin/chromium is missing (apt-get install -y chromium)");

function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 60_000, cwd: repoRoot }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }),
    );
  });
}

describe.skipIf(!hasChromium)("dashboard in Chromium", () => {
  let gateway: TestGateway;
  let stripe: FakeStripe;
  let browser: Browser;
  let token = "";
  const devices: WatchedPage[] = [];

  beforeAll(async () => {
    ensureBuild();
    stripe = await startFakeStripe({ webhookSecret });
    gateway = await startTestGateway({
      withNext: true,
      env: {
        STRIPE_SECRET_KEY: "sk_test_dashboard",
        STRIPE_PUBLISHABLE_KEY: "pk_test_dashboard",
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

  async function device(options: { width?: number; dark?: boolean } = {}): Promise<WatchedPage> {
    const opened = await openDevice(browser, gateway.baseUrl, options);
    devices.push(opened);
    return opened;
  }

  async function expectNoConsoleErrors(watched: WatchedPage): Promise<void> {
    expect(watched.errors, watched.errors.join("\n")).toEqual([]);
    await watched.context.close();
  }

  async function signInByLink(page: Page): Promise<void> {
    await page.goto(`${gateway.baseUrl}/dashboard#token=${token}`);
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
  }

  it("signs up in one click, shows the token once and keeps it out of every URL", async () => {
    const watched = await device();
    const { page } = watched;
    await page.goto(`${gateway.baseUrl}/dashboard`);
    await shoot(page, "dashboard-signed-out-desktop");
    await page.getByRole("button", { name: "Create a token" }).click();
    const field = page.getByRole("textbox", { name: "Your API token", exact: true });
    await field.waitFor();
    token = await field.inputValue();
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    await expect(page.getByText("Keep it somewhere safe now.").isVisible()).resolves.toBe(true);
    await page.getByRole("button", { name: "Copy token" }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(token);
    await shoot(page, "dashboard-token-once-desktop");

    // Remembered on this device, and the session cookie is out of the page's reach.
    await expect(page.evaluate(() => localStorage.getItem("pod-dashboard-token"))).resolves.toBe(token);
    const cookie = (await watched.context.cookies()).find((entry) => entry.name === "pod_dashboard");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/dashboard" });
    await expect(page.evaluate(() => document.cookie)).resolves.not.toContain(token);

    await page.getByRole("button", { name: /I saved it/ }).click();
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await expect(page.locator('[data-stat="available"] .dash-stat__value').textContent()).resolves.toBe(
      "$0.00",
    );
    expect(page.url()).toBe(`${gateway.baseUrl}/dashboard`);
    await expectNoConsoleErrors(watched);
  }, 240_000);

  it("signs in from the register response's dashboard_url and drops the token from the address bar", async () => {
    const registered = (await (await fetch(`${gateway.baseUrl}/v1/register`, { method: "POST" })).json()) as {
      api_token: string;
      instructions: { dashboard_url: string };
    };
    expect(registered.instructions.dashboard_url).toBe(
      `${gateway.baseUrl}/dashboard#token=${registered.api_token}`,
    );
    const watched = await device({ width: phone.width });
    const { page } = watched;
    await page.goto(registered.instructions.dashboard_url);
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    expect(page.url()).not.toContain(registered.api_token);
    const history = await page.evaluate(() => [window.location.href, window.history.length]);
    expect(String(history[0])).not.toContain(registered.api_token);
    // Nothing on the page leaks the location to the sites it links to.
    const referrer = await page.$$eval('meta[name="referrer"]', (metas) =>
      metas.map((meta) => meta.getAttribute("content")),
    );
    expect(referrer.length).toBeGreaterThan(0);
    expect(new Set(referrer)).toEqual(new Set(["no-referrer"]));
    await expectNoConsoleErrors(watched);
  }, 240_000);

  it("signs in on another device with a pasted token, and signs out", async () => {
    const watched = await device({ width: phone.width, dark: true });
    const { page } = watched;
    await page.goto(`${gateway.baseUrl}/dashboard`);
    await page.getByLabel("Paste your API token").fill("not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator(".dash-alert").filter({ hasText: "UUID" }).waitFor();
    await page.getByLabel("Paste your API token").fill("00000000-0000-4000-8000-000000000000");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator(".dash-alert").filter({ hasText: "unknown token" }).waitFor();
    await shoot(page, "dashboard-signed-out-phone-dark");
    await page.getByLabel("Paste your API token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Create a token" }).waitFor();
    await expect(page.evaluate(() => localStorage.getItem("pod-dashboard-token"))).resolves.toBeNull();
    // Console errors here would be the expected 401 of the unknown token; only page errors count.
    expect(watched.errors.filter((text) => !text.includes("401"))).toEqual([]);
    await watched.context.close();
  }, 240_000);

  it("refuses a cross-site sign-in and a sign-in sent as a form", async () => {
    const cross = await fetch(`${gateway.baseUrl}/dashboard/session`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://evil.example" },
      body: JSON.stringify({ api_token: token }),
    });
    expect(cross.status).toBe(403);
    expect(cross.headers.get("set-cookie")).toBeNull();
    const form = await fetch(`${gateway.baseUrl}/dashboard/session`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `api_token=${token}`,
    });
    expect(form.status).toBe(400);
    expect(form.headers.get("set-cookie")).toBeNull();
  });

  it("funds by card: preset, fee before paying, Checkout, pending, then the new balance", async () => {
    const watched = await device();
    const { page } = watched;
    await signInByLink(page);
    await page
      .getByRole("navigation", { name: "Dashboard" })
      .getByRole("link", { name: "Add funds" })
      .click();
    await page.getByRole("heading", { name: "Card" }).waitFor();
    await page.getByRole("button", { name: "$20", exact: true }).click();
    const breakdown = page.getByTestId("card-breakdown");
    await expect(breakdown.textContent()).resolves.toMatch(
      /Credited to your balance\$20\.00Card fee\$0\.\d\dYou pay\$2\d\.\d\d/,
    );
    // A custom amount outside the limits is refused before any payment starts.
    await page.getByLabel(/Or another amount/).fill("1");
    await page.locator(".dash-alert").filter({ hasText: "Choose an amount" }).waitFor();
    await expect(page.getByRole("button", { name: /Pay .* by card|Pay by card/ }).isDisabled()).resolves.toBe(
      true,
    );
    await page.getByLabel(/Or another amount/).fill("");
    await page.getByRole("button", { name: "$20", exact: true }).click();
    await page.getByRole("button", { name: /^Pay \$2\d\.\d\d by card$/ }).waitFor();
    await shoot(page, "dashboard-fund-desktop");
    const phoneView = await device({ width: phone.width });
    await signInByLink(phoneView.page);
    await phoneView.page.goto(`${gateway.baseUrl}/dashboard/fund`);
    await phoneView.page.getByRole("button", { name: "$20", exact: true }).waitFor();
    await shoot(phoneView.page, "dashboard-fund-phone");
    await expectNoConsoleErrors(phoneView);

    await page.getByRole("button", { name: /^Pay \$2\d\.\d\d by card$/ }).click();
    await page.waitForURL((url) => url.href.startsWith(stripe.apiBase));
    await page.getByRole("button", { name: /pay/i }).click();
    await page.waitForURL(/\/dashboard\/fund\/return\?session_id=/);
    await page.getByTestId("new-balance").waitFor({ timeout: 60_000 });
    await expect(page.getByTestId("new-balance").textContent()).resolves.toBe("$20.00");
    await shoot(page, "dashboard-card-return-desktop");
    expect((await gateway.balanceOf(token)).available).toBe(20_000_000n);
    await expectNoConsoleErrors(watched);
  }, 240_000);

  it("makes calls with the copied curl and OpenAI SDK snippets, then shows them in the chart and table", async () => {
    const watched = await device();
    const { page } = watched;
    await signInByLink(page);
    await page.getByRole("tab", { name: "curl" }).click();
    await page.locator('[data-snippet="curl"]').getByRole("button", { name: "Copy code" }).click();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`);
    const curlRun = await run("bash", ["-c", `set -euo pipefail\n${curl} --fail-with-body -sS`]);
    expect(curlRun.code, curlRun.stderr + curlRun.stdout).toBe(0);
    expect(JSON.parse(curlRun.stdout)).toMatchObject({ object: "chat.completion" });

    // Arrow keys move between the tabs.
    await page.getByRole("tab", { name: "curl" }).focus();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByRole("tab", { name: "OpenAI SDK" }).getAttribute("aria-selected")).resolves.toBe(
      "true",
    );
    await page.locator('[data-snippet="openai"]').getByRole("button", { name: "Copy code" }).click();
    const sdk = await page.evaluate(() => navigator.clipboard.readText());
    mkdirSync(scratchDir, { recursive: true });
    const file = path.join(scratchDir, "openai-snippet.mjs");
    writeFileSync(file, sdk);
    const sdkRun = await run(process.execPath, [file]);
    expect(sdkRun.code, sdkRun.stderr).toBe(0);
    expect(sdkRun.stdout.trim().length).toBeGreaterThan(0);

    await page.reload();
    await page.locator('.dash-chart rect[data-model="gpt-4o-mini"]').first().waitFor();
    await expect(page.locator('[data-stat="today"] .dash-stat__value').textContent()).resolves.not.toBe(
      "$0.00",
    );
    await expect(page.locator('[data-stat="available"] .dash-stat__value').textContent()).resolves.toMatch(
      /^\$19\.9/,
    );
    await page.locator('.dash-table tr[data-kind="inference"]').nth(1).waitFor();
    await expect(
      page.locator('.dash-table tr[data-kind="inference"] code').first().textContent(),
    ).resolves.toBe("gpt-4o-mini");
    await shoot(page, "dashboard-home-desktop");
    await expectNoConsoleErrors(watched);

    for (const dark of [false, true]) {
      const view = await device({ width: phone.width, dark });
      await signInByLink(view.page);
      await view.page.locator(".dash-table tr[data-kind]").first().waitFor();
      const overflow = await view.page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      // Every tab fully on screen, and the activity table fits without scrolling sideways.
      const fit = await view.page.evaluate(() => ({
        tabsPastEdge: [...document.querySelectorAll(".dash-nav__link, .dash-tab")].filter(
          (link) => link.getBoundingClientRect().right > window.innerWidth,
        ).length,
        tabs: document.querySelectorAll(".dash-nav__link, .dash-tab").length,
        tableOverflow: (() => {
          const wrap = document.querySelector(".dash-table-wrap");
          return wrap ? wrap.scrollWidth - wrap.clientWidth : -1;
        })(),
      }));
      expect(fit).toEqual({ tabsPastEdge: 0, tabs: 9, tableOverflow: 0 });
      // The chart's last day label (today's) is drawn whole, inside the chart, not cut at its edge.
      const labels = await view.page.evaluate(() => {
        // Two drawings, one per layout; the phone shows one of them.
        const shown = [...document.querySelectorAll(".dash-chart__svg")].find(
          (drawing) => drawing.getBoundingClientRect().width > 0,
        );
        const svg = shown?.getBoundingClientRect();
        const drawn = [...(shown?.querySelectorAll(".dash-chart__label") ?? [])];
        const last = drawn.at(-1)?.getBoundingClientRect();
        return {
          count: drawn.length,
          last: drawn.at(-1)?.textContent,
          inside: !!svg && !!last && last.left >= svg.left && last.right <= svg.right + 0.5,
        };
      });
      expect(labels.count).toBeGreaterThan(1);
      expect(labels).toMatchObject({ last: new Date().toISOString().slice(5, 10), inside: true });
      await shoot(view.page, `dashboard-home-phone${dark ? "-dark" : ""}`);
      await expectNoConsoleErrors(view);
    }
    const darkDesktop = await device({ width: desktop.width, dark: true });
    await signInByLink(darkDesktop.page);
    await darkDesktop.page.locator(".dash-table tr[data-kind]").first().waitFor();
    await shoot(darkDesktop.page, "dashboard-home-desktop-dark");
    await expectNoConsoleErrors(darkDesktop);
  }, 240_000);

  it("pages through the activity table", async () => {
    for (let index = 0; index < 11; index += 1) {
      const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: `hi ${index}` }] }),
      });
      expect(response.status).toBe(200);
      await response.text();
    }
    const watched = await device();
    const { page } = watched;
    await signInByLink(page);
    const rows = page.locator(".dash-table tbody tr[data-kind]");
    await rows.nth(9).waitFor();
    // Identical requests in one second render identical text, so rows are compared by id.
    const firstId = await rows.first().getAttribute("data-id");
    await page.getByRole("button", { name: "Older" }).click();
    await page.getByText("Page 2").waitFor();
    await expect(rows.first().getAttribute("data-id")).resolves.not.toBe(firstId);
    await page.getByRole("button", { name: "Newer" }).click();
    await page.getByText("Page 1").waitFor();
    await expect(rows.first().getAttribute("data-id")).resolves.toBe(firstId);
    await expectNoConsoleErrors(watched);
  }, 240_000);
});
