import { describe, expect, it } from "vitest";
import { GET as pagesJson } from "../../app/api/pages.json/route";
import { GET as pageMarkdown } from "../../app/docs-md/[...slug]/route";
import { GET as llmsTxt } from "../../app/llms.txt/route";
import { GET as llmsFull } from "../../app/llms-full.txt/route";
import { createDocsHandlers, resolveDocsBaseUrl } from "../../lib/docs/handlers";
import { parsePageMarkdown } from "../../lib/docs/page-markdown";
import type { PagesManifest } from "../../lib/docs/pages-manifest";
import { loadDocPages } from "../../lib/docs/source";

/** The route files, called the way Next calls them, and the base-URL rules behind them. */

const origin = "http://docs.test:4000";
const request = (path: string, headers: Record<string, string> = {}) =>
  new Request(`${origin}${path}`, { headers });
const markdownContext = (slug: string) => ({ params: Promise.resolve({ slug: slug.split("/") }) });
const pages = loadDocPages();

function expectMachineHeaders(response: Response, contentType: string) {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe(contentType);
  expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
}

describe("docs machine routes", () => {
  it("serves /llms.txt as text/plain", async () => {
    const response = await llmsTxt(request("/llms.txt"));
    expectMachineHeaders(response, "text/plain; charset=utf-8");
    const text = await response.text();
    expect(text.startsWith("# Pod Gateway\n")).toBe(true);
    expect(text).toContain(`(${origin}/docs/using/quickstart)`);
  });

  it("serves /llms-full.txt as text/plain", async () => {
    const response = await llmsFull(request("/llms-full.txt"));
    expectMachineHeaders(response, "text/plain; charset=utf-8");
    expect(await response.text()).toContain(`${pages.length} pages`);
  });

  it("serves /api/pages.json as JSON with every page", async () => {
    const response = await pagesJson(request("/api/pages.json"));
    expectMachineHeaders(response, "application/json; charset=utf-8");
    const manifest = (await response.json()) as PagesManifest;
    expect(manifest.page_count).toBe(pages.length);
    expect(manifest.pages.map((page) => page.slug)).toEqual(pages.map((page) => page.slug));
    expect(Number.isNaN(Date.parse(manifest.generated_at))).toBe(false);
    expect(manifest.llms_index).toBe(`${origin}/llms.txt`);
  });

  it.each(pages.map((page) => [page.slug, page] as const))(
    "serves %s.md as text/markdown",
    async (slug, page) => {
      const response = await pageMarkdown(request(`/docs/${slug}.md`), markdownContext(slug));
      expectMachineHeaders(response, "text/markdown; charset=utf-8");
      expect(response.headers.get("x-robots-tag")).toBe("index, follow");
      const served = parsePageMarkdown(await response.text());
      expect(served).toEqual({
        title: page.title,
        description: page.description,
        source: `${origin}/docs/${slug}`,
        body: page.body,
      });
    },
  );

  it("answers 404 for a page that does not exist, without caching it", async () => {
    const response = await pageMarkdown(request("/docs/nope/missing.md"), markdownContext("nope/missing"));
    expect(response.status).toBe(404);
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});

describe("docs base URL", () => {
  const unset = { configured: undefined, trustProxy: false };

  it("prefers the configured address", () => {
    const resolved = resolveDocsBaseUrl(request("/llms.txt", { host: "evil.example" }), {
      configured: "https://docs.pod.example/",
      trustProxy: true,
    });
    expect(resolved).toBe("https://docs.pod.example");
  });

  it("uses the Host header the client sent, since Next rewrites request.url to its own host", () => {
    expect(resolveDocsBaseUrl(request("/llms.txt", { host: "gateway.example:8443" }), unset)).toBe(
      "http://gateway.example:8443",
    );
    expect(resolveDocsBaseUrl(request("/llms.txt"), unset)).toBe(origin);
  });

  it("honours X-Forwarded-Host and -Proto only behind a trusted proxy", () => {
    const forwarded = request("/llms.txt", {
      host: "internal:3000",
      "x-forwarded-host": "docs.example.com, proxy.local",
      "x-forwarded-proto": "https",
    });
    expect(resolveDocsBaseUrl(forwarded, { configured: undefined, trustProxy: true })).toBe(
      "https://docs.example.com",
    );
    expect(resolveDocsBaseUrl(forwarded, unset)).toBe("http://internal:3000");
  });

  it("ignores a malformed host", () => {
    expect(resolveDocsBaseUrl(request("/llms.txt", { host: "bad host/<x>" }), unset)).toBe(origin);
  });

  it("threads the configured address through every output", async () => {
    const handlers = createDocsHandlers({
      baseUrl: { configured: "https://docs.pod.example", trustProxy: false },
    });
    const text = await (await handlers.llmsTxt(request("/llms.txt"))).text();
    expect(text).toContain("(https://docs.pod.example/docs/using/quickstart)");
    expect(text).not.toContain(origin);
  });
});
