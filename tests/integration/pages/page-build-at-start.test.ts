import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeBuildStamp } from "../../../lib/pages/build-stamp";
import { PageHost } from "../../../lib/pages/page-host";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";

// npm start serves the API at once and builds the pages beside it: these start a real gateway
// whose page host builds a scratch root with a stand-in build the test releases by hand, so
// "answers before the build ends" is checked while the build is provably still running.

const fakeBuild = path.resolve(import.meta.dirname, "../../helpers/fake-page-build.ts");
const tsxLoader = import.meta.resolve("tsx");

const opened: { close(): Promise<void>; root: string }[] = [];

afterEach(async () => {
  for (const { close, root } of opened.splice(0)) {
    await close();
    rmSync(root, { recursive: true, force: true });
  }
});

/** A scratch root with one build input, so its stamp can go stale. */
function scratchRoot(): string {
  const root = mkdtempSync(path.join(tmpdir(), "pod-pages-"));
  mkdirSync(path.join(root, "app"));
  writeFileSync(path.join(root, "app", "page.tsx"), "export default function Page() { return null; }\n");
  return root;
}

function pageHost(root: string) {
  let loads = 0;
  const pages = new PageHost({
    root,
    load: async () => {
      loads += 1;
      return async (_request, response) => {
        response.writeHead(200, { "content-type": "text/html" });
        response.end("<p>the docs</p>");
      };
    },
    build: { command: process.execPath, args: ["--import", tsxLoader, fakeBuild] },
  });
  pages.start();
  return { pages, loads: () => loads };
}

/** A whole gateway (database, API, fake upstreams) with these pages beside its API. */
async function startWithPages(root: string) {
  const { pages, loads } = pageHost(root);
  const gateway: TestGateway = await startTestGateway({ pages });
  opened.push({ close: () => gateway.close(), root });
  return { gateway, pages, loads };
}

/** The page host alone on a node:http server: enough where the API is not what is tested. */
async function servePagesOnly(root: string) {
  const { pages } = pageHost(root);
  const server: Server = createServer((request, response) => void pages.handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  opened.push({
    close: async () => {
      pages.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    root,
  });
  return { baseUrl, pages };
}

async function waitFor(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("npm start: the API at once, the pages when their build is ready", () => {
  it("answers /health and the API while a first build runs, says 'building' to pages, then serves them", async () => {
    const root = scratchRoot();
    const { gateway, pages, loads } = await startWithPages(root);
    await waitFor(() => existsSync(path.join(root, "build-started")), "the build to start");
    expect(pages.status).toBe("building");

    const health = await fetch(`${gateway.baseUrl}/health`);
    expect(health.status).toBe(200);
    const token = await gateway.createFundedToken(1_000_000n);
    const chat = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(chat.status).toBe(200);

    // A browser gets a page that says what is happening and reloads itself.
    const browser = await fetch(`${gateway.baseUrl}/docs`, { headers: { accept: "text/html,*/*" } });
    expect(browser.status).toBe(503);
    expect(browser.headers.get("content-type")).toMatch(/^text\/html/);
    expect(browser.headers.get("retry-after")).toBe("10");
    expect(browser.headers.get("cache-control")).toBe("no-store");
    const html = await browser.text();
    expect(html).toContain("Building the pages");
    expect(html).toContain('http-equiv="refresh"');
    expect(html).toContain("The API is already up");
    // A script or an API client gets JSON it can branch on.
    const script = await fetch(`${gateway.baseUrl}/dashboard`, { headers: { accept: "application/json" } });
    expect(script.status).toBe(503);
    expect(((await script.json()) as { error: { type: string } }).error.type).toBe("pages_building");
    // An unknown API path is still the API's own 404, not the page host's answer.
    expect((await fetch(`${gateway.baseUrl}/v1/nope`)).status).toBe(404);
    expect(pages.status).toBe("building");
    expect(loads()).toBe(0);

    writeFileSync(path.join(root, "release"), "");
    await waitFor(() => pages.status === "ready", "the build to finish");
    // Next is loaded on the first page request, once.
    expect(loads()).toBe(0);
    const page = await fetch(`${gateway.baseUrl}/docs`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe("<p>the docs</p>");
    await fetch(`${gateway.baseUrl}/dashboard`);
    expect(loads()).toBe(1);
  });

  it("rebuilds a stale build (an input changed since) and serves nothing stale meanwhile", async () => {
    const root = scratchRoot();
    mkdirSync(path.join(root, ".next"));
    writeFileSync(path.join(root, ".next", "BUILD_ID"), "old\n");
    writeBuildStamp(root);
    writeFileSync(path.join(root, "app", "page.tsx"), "export default function Page() { return 1; }\n");
    const { gateway, pages, loads } = await startWithPages(root);
    await waitFor(() => existsSync(path.join(root, "build-started")), "the rebuild to start");
    const during = await fetch(`${gateway.baseUrl}/docs`, { headers: { accept: "application/json" } });
    expect(during.status).toBe(503);
    expect(((await during.json()) as { error: { message: string } }).error.message).toContain("rebuilt");
    expect(loads()).toBe(0);
    writeFileSync(path.join(root, "release"), "");
    await waitFor(() => pages.status === "ready", "the rebuild to finish");
    expect((await fetch(`${gateway.baseUrl}/docs`)).status).toBe(200);
  });

  it("starts no build when the build matches its inputs", async () => {
    const root = scratchRoot();
    mkdirSync(path.join(root, ".next"));
    writeFileSync(path.join(root, ".next", "BUILD_ID"), "current\n");
    writeBuildStamp(root);
    const { baseUrl, pages } = await servePagesOnly(root);
    expect(pages.status).toBe("ready");
    expect((await fetch(`${baseUrl}/docs`)).status).toBe(200);
    expect(existsSync(path.join(root, "build-started"))).toBe(false);
  });

  it("says the build failed, and how to see why, when it fails", async () => {
    const root = scratchRoot();
    writeFileSync(path.join(root, "fail"), "");
    writeFileSync(path.join(root, "release"), "");
    const { baseUrl, pages } = await servePagesOnly(root);
    await waitFor(() => pages.status === "failed", "the build to fail");
    const page = await fetch(`${baseUrl}/docs`, { headers: { accept: "application/json" } });
    expect(page.status).toBe(503);
    expect(page.headers.get("retry-after")).toBeNull();
    const body = (await page.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe("pages_unavailable");
    expect(body.error.message).toContain("the page build failed (exit 1)");
    expect(body.error.message).toContain("npm run build");
  });
});
