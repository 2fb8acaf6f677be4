import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { repoRoot } from "./next-server";

/** Debian's Chromium through playwright-core, for the dashboard's page tests. */

const chromiumPath = "/usr/bin/chromium";
export const hasChromium = existsSync(chromiumPath);
const screenshotDir = path.join(repoRoot, "tests/e2e/screenshots");

export const phone = { width: 360, height: 780 };
export const desktop = { width: 1360, height: 900 };

export async function launchChromium(): Promise<Browser> {
  mkdirSync(screenshotDir, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions seen so far. */
  errors: string[];
}

/** A fresh browser profile (a "device") whose page reports console errors to the test. */
export async function openDevice(
  browser: Browser,
  baseUrl: string,
  options: { width?: number; height?: number; dark?: boolean; userAgent?: string } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? desktop.width, height: options.height ?? desktop.height },
    colorScheme: options.dark ? "dark" : "light",
    ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent }),
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    // Only our pages count: the Stripe stand-in is someone else's page (its favicon 404s).
    const source = message.location().url || page.url();
    if (message.type() === "error" && source.startsWith(baseUrl))
      errors.push(`${message.text()} (${source})`);
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, context, errors };
}

export async function shoot(page: Page, name: string): Promise<void> {
  // A full-page shot taken while scrolled paints the sticky header mid-page.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });
}
