import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildNavigation } from "../../lib/docs/navigation";
import { parsePageMarkdown } from "../../lib/docs/page-markdown";
import type { PagesManifest } from "../../lib/docs/pages-manifest";
import { loadDocPages } from "../../lib/docs/source";
import { collectSnippets, targetsDocsSite } from "../docs/extract-snippets";
import { describeRun, runSnippet } from "../docs/run-snippet";
import { ensureBuild, type RunningNext, repoRoot, startNext } from "./next-server";
import { axeViolations, horizontalOverflow, waitForHydration } from "./page-checks";

/**
 * The docs site as a browser and a crawler see it: builds the app if needed, runs
 * `next start`, opens the home page and one page of each section in Debian's Chromium,
 * saves screenshots to tests/e2e/screenshots/, and fetches every machine-readable URL.
 */

const chromiumPath = "/usr/bin/chromium";
const hasChromium = existsSync(chromiumPath);
const screenshotDir = path.join(repoRoot, "tests/e2e/screenshots");
const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const pages = loadDocPages();
const sections = buildNavigation(pages);
const firstOfEachSection = sections.flatMap((section) =>
  section.pages[0] === undefined ? [] : [section.pages[0]],
);

if (!hasChromium) {
  console.warn(`docs e2e skipped: ${chromiumPath} is missing (apt-get install -y chromium)`);
}

describe.skipIf(!hasChromium)("docs site in Chromium", () => {
  let server: RunningNext | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    ensureBuild();
    server = await startNext();
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
    mkdirSync(screenshotDir, { recursive: true });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(pathname: string, options: { dark?: boolean; width?: number } = {}): Promise<Page> {
    if (browser === undefined || server === undefined) throw new Error("browser or server not started");
    const context = await browser.newContext({
      viewport: { width: options.width ?? 1360, height: 900 },
      colorScheme: options.dark ? "dark" : "light",
    });
    const page = await context.newPage();
    const response = await page.goto(`${server.baseUrl}${pathname}`, { waitUntil: "load" });
    expect(response?.status(), pathname).toBe(200);
    return page;
  }

  async function shoot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: false });
    await page.context().close();
  }

  async function alternates(page: Page): Promise<Array<{ type: string | null; href: string | null }>> {
    return page.$$eval('link[rel="alternate"]', (links) =>
      links.map((link) => ({ type: link.getAttribute("type"), href: link.getAttribute("href") })),
    );
  }

  it("renders the home page and advertises the machine-readable files", async () => {
    const page = await open("/");
    expect(await page.title()).toContain("Pod Gateway");
    await expect(page.locator("h1").textContent()).resolves.toMatch(/One base URL/);
    expect(await alternates(page)).toEqual(
      expect.arrayContaining([
        { type: "text/plain", href: "/llms.txt" },
        { type: "text/plain", href: "/llms-full.txt" },
        { type: "application/json", href: "/api/pages.json" },
      ]),
    );
    await shoot(page, "home-light");
    await shoot(await open("/", { dark: true }), "home-dark");
  });

  it("the home page says how to sign up and fund as things are, fits a 360 px phone and passes axe, light and dark", async () => {
    for (const dark of [false, true])
      for (const width of [360, 1360]) {
        const page = await open("/", { dark, width });
        const label = `home ${width}px ${dark ? "dark" : "light"}`;
        // The hero's first button signs a person up (the dashboard's one-click token).
        await expect(
          page
            .locator(".hero")
            .getByRole("link", { name: /Create a token/ })
            .getAttribute("href"),
        ).resolves.toBe("/dashboard");
        // Card and on-chain deposits exist: nothing says they are still coming.
        await expect(page.locator("main").textContent()).resolves.not.toMatch(/on the way|coming soon/i);
        expect(await horizontalOverflow(page), label).toBeUndefined();
        expect(await axeViolations(page), label).toEqual([]);
        if (width === 360) await shoot(page, `home-360-${dark ? "dark" : "light"}`);
        else await page.context().close();
      }
  });

  it("every docs page, section index and the docs index fit a 360 px phone and pass axe, light and dark", async () => {
    const paths = [
      "/docs",
      ...sections.map((section) => `/docs/${section.id}`),
      ...pages.map((entry) => `/docs/${entry.slug}`),
    ];
    const visits = paths.flatMap((pathname) => [false, true].map((dark) => ({ pathname, dark })));
    const problems: string[] = [];
    // Four tabs at a time: one at a time takes a minute and a half on a loaded CI machine.
    let next = 0;
    async function worker(): Promise<void> {
      for (let visit = visits[next++]; visit !== undefined; visit = visits[next++]) {
        const page = await open(visit.pathname, { dark: visit.dark, width: 360 });
        const label = `${visit.pathname} 360px ${visit.dark ? "dark" : "light"}`;
        const overflow = await horizontalOverflow(page);
        if (overflow !== undefined) problems.push(`${label}: ${overflow}`);
        for (const violation of await axeViolations(page)) problems.push(`${label}: ${violation}`);
        await page.context().close();
      }
    }
    await Promise.all([worker(), worker(), worker(), worker()]);
    expect(visits.length).toBe((pages.length + sections.length + 1) * 2);
    expect(problems).toEqual([]);
  }, 600_000);

  it("renders the docs index with every section", async () => {
    const page = await open("/docs");
    for (const section of sections) {
      await expect(page.locator(".section-card h2").filter({ hasText: section.title }).count()).resolves.toBe(
        1,
      );
    }
    await shoot(page, "docs-index");
  });

  it.each(firstOfEachSection.map((entry) => [entry.slug, entry] as const))(
    "renders %s with navigation, alternates and a working table of contents",
    async (slug, entry) => {
      const page = await open(`/docs/${slug}`);
      expect(await page.title()).toContain(entry.title);
      await expect(page.locator("article h1").textContent()).resolves.toContain(entry.title);
      const navHeadings = await page.locator(".sidebar-nav__heading").allTextContents();
      expect(navHeadings.map((text) => text.toLowerCase())).toEqual(
        sections.map((section) => section.title.toLowerCase()),
      );
      await expect(page.locator('.sidebar-nav__link[aria-current="page"]').textContent()).resolves.toContain(
        entry.title,
      );
      expect(await alternates(page)).toEqual(
        expect.arrayContaining([
          { type: "text/plain", href: "/llms.txt" },
          { type: "text/plain", href: "/llms-full.txt" },
          { type: "application/json", href: "/api/pages.json" },
          { type: "text/markdown", href: `/docs/${slug}.md` },
        ]),
      );
      const targets = await page.$$eval(".toc a", (links) =>
        links.map((link) => link.getAttribute("href") ?? ""),
      );
      for (const target of targets) {
        await expect(page.locator(`[id="${target.slice(1)}"]`).count(), target).resolves.toBe(1);
      }
      await shoot(page, `section-${slug.replace(/\//g, "--")}`);
    },
    60_000,
  );

  it("has code blocks with copy buttons, in dark mode too", async () => {
    const page = await open("/docs/using/quickstart", { dark: true });
    expect(await page.locator(".code-block").count()).toBeGreaterThan(3);
    expect(await page.locator(".code-block__copy").count()).toBe(await page.locator(".code-block").count());
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe("dark");
    await page.locator(".code-block").nth(1).scrollIntoViewIfNeeded();
    await shoot(page, "quickstart-dark");
  });

  it("switches theme with the toggle", async () => {
    const page = await open("/docs/api/errors");
    await waitForHydration(page, 'button[aria-label^="Switch to"]');
    await page.locator('button[aria-label^="Switch to"]').click();
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe("dark");
    await page.context().close();
  });

  it("searches across pages", async () => {
    const page = await open("/docs/using/quickstart");
    // A key pressed before React hydrates the page has no listener yet, so press until the dialog opens.
    await expect
      .poll(async () => {
        await page.keyboard.press("Control+k");
        return page.locator(".search-dialog__input").isVisible();
      })
      .toBe(true);
    await page.locator(".search-dialog__input").fill("pinning");
    await page.locator(".search-result").first().waitFor();
    await expect(page.locator(".search-result__title").first().textContent()).resolves.toContain("Routing");
    await shoot(page, "search");
  });

  it("works on a phone, with the page list in a drawer", async () => {
    const page = await open("/docs/integrations/claude-code", { width: 390 });
    await expect(page.locator(".docs-sidebar").isVisible()).resolves.toBe(true);
    const hiddenLeft = await page
      .locator(".docs-sidebar")
      .evaluate((element) => element.getBoundingClientRect().right);
    expect(hiddenLeft).toBeLessThanOrEqual(0);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shoot(page, "mobile-page");
    const drawer = await open("/docs/integrations/claude-code", { width: 390 });
    await waitForHydration(drawer, ".site-header__menu");
    await drawer.locator(".site-header__menu").click();
    await drawer.waitForTimeout(300);
    const shownLeft = await drawer
      .locator(".docs-sidebar")
      .evaluate((element) => element.getBoundingClientRect().left);
    expect(shownLeft).toBeGreaterThanOrEqual(0);
    await shoot(drawer, "mobile-drawer");
  });

  it("serves every page in pages.json at a resolvable URL, with its .md twin", async () => {
    if (server === undefined) throw new Error("server not started");
    const manifestResponse = await fetch(`${server.baseUrl}/api/pages.json`);
    expect(manifestResponse.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(manifestResponse.headers.get("cache-control")).toBe("public, max-age=3600");
    const manifest = (await manifestResponse.json()) as PagesManifest;
    expect(manifest.page_count).toBe(pages.length);
    expect(manifest.url).toBe(server.baseUrl);
    for (const entry of manifest.pages) {
      const html = await fetch(entry.url);
      expect(html.status, entry.url).toBe(200);
      expect(html.headers.get("content-type")).toMatch(/^text\/html/);
      const markdown = await fetch(entry.markdown);
      expect(markdown.status, entry.markdown).toBe(200);
      expect(markdown.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      expect(markdown.headers.get("cache-control")).toBe("public, max-age=3600");
      expect(parsePageMarkdown(await markdown.text()).source).toBe(entry.url);
    }
    for (const file of ["/llms.txt", "/llms-full.txt"]) {
      const response = await fetch(`${server.baseUrl}${file}`);
      expect(response.status, file).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    }
    expect((await fetch(`${server.baseUrl}/docs/nope/missing.md`)).status).toBe(404);
  }, 120_000);

  it("compiles the same pages through contentlayer2 as the machine outputs list", () => {
    const generated = JSON.parse(
      readFileSync(path.join(repoRoot, ".contentlayer/generated/Doc/_index.json"), "utf8"),
    ) as Array<{ slug: string; title: string; description: string }>;
    const fromContentlayer = generated.map(({ slug, title, description }) => ({ slug, title, description }));
    const fromSource = pages.map(({ slug, title, description }) => ({ slug, title, description }));
    expect(fromContentlayer.sort((left, right) => left.slug.localeCompare(right.slug))).toEqual(fromSource);
  });

  it.each(
    collectSnippets(pages)
      .filter((snippet) => snippet.runnable && targetsDocsSite(snippet))
      .map((snippet) => [`${snippet.slug} #${snippet.index}`, snippet] as const),
  )("runs the docs-site example %s", async (_name, snippet) => {
    if (server === undefined) throw new Error("server not started");
    const run = await runSnippet(snippet, { POD_BASE_URL: server.baseUrl });
    expect(run.problem, describeRun(snippet, run)).toBeUndefined();
  });
});
