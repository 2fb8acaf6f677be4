import { describe, expect, it } from "vitest";
import { GET as pagesJson } from "../../app/api/pages.json/route";
import { GET as pageMarkdown } from "../../app/docs-md/[[...slug]]/route";
import { GET as llmsTxt } from "../../app/llms.txt/route";
import { GET as llmsFull } from "../../app/llms-full.txt/route";
import { createDocsHandlers, resolveDocsBaseUrl } from "../../lib/docs/handlers";
import { parsePageMarkdown } from "../../lib/docs/page-markdown";
import type { PagesManifest } from "../../lib/docs/pages-manifest";
import { publishedMarkdown } from "../../lib/docs/published-markdown";
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
    expect([...manifest.pages.map((page) => page.slug)].sort()).toEqual(
      pages.map((page) => page.slug).sort(),
    );
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
        body: publishedMarkdown(page.body),
      });
    },
  );

  it("never shows the snippet runner's fence directives to readers", async () => {
    const directive = /^\s*(`{3,}|~{3,})[^\n]*\b(norun|expect=\d{3})\b/m;
    expect(pages.some((page) => directive.test(page.body))).toBe(true);
    for (const page of pages) {
      const response = await pageMarkdown(request(`/docs/${page.slug}.md`), markdownContext(page.slug));
      expect(await response.text()).not.toMatch(directive);
    }
    expect(await (await llmsFull(request("/llms-full.txt"))).text()).not.toMatch(directive);
    expect(publishedMarkdown('```ts title="a.ts" norun\nx\n```\n')).toBe('```ts title="a.ts"\nx\n```\n');
  });

  it("serves the docs index and each section index as Markdown too", async () => {
    const index = await pageMarkdown(request("/docs.md"), { params: Promise.resolve({}) });
    expectMachineHeaders(index, "text/markdown; charset=utf-8");
    const indexText = await index.text();
    expect(indexText).toContain(`source: ${origin}/docs\n`);
    expect(indexText.indexOf("## [Introduction]")).toBeLessThan(indexText.indexOf("## [Using Pod Gateway]"));
    const sections = [...new Set(pages.map((page) => page.section))];
    for (const section of sections) {
      const response = await pageMarkdown(request(`/docs/${section}.md`), markdownContext(section));
      expectMachineHeaders(response, "text/markdown; charset=utf-8");
      const text = await response.text();
      expect(text).toContain(`source: ${origin}/docs/${section}\n`);
      for (const page of pages.filter((candidate) => candidate.section === section))
        expect(text).toContain(`(${origin}/docs/${page.slug})`);
    }
    const missing = await pageMarkdown(request("/docs/nope.md"), markdownContext("nope"));
    expect(missing.status).toBe(404);
  });

  it("orders llms.txt and llms-full.txt as the site's navigation does, introduction first", async () => {
    const index = await (await llmsTxt(request("/llms.txt"))).text();
    expect(index.split("\n").find((line) => line.startsWith("## "))).toBe("## Introduction");
    const corpus = await (await llmsFull(request("/llms-full.txt"))).text();
    const firstTitle = corpus.split("\n---\n")[1]?.trim().split("\n")[0];
    const firstIntroduction = pages
      .filter((page) => page.section === "introduction")
      .sort((left, right) => (left.order ?? 1e9) - (right.order ?? 1e9))[0];
    expect(firstTitle).toBe(`# ${firstIntroduction?.title}`);
  });

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
