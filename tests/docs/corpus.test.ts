import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gatewayAdditions } from "../../lib/catalog/gateway-additions";
import { extractHeadings } from "../../lib/docs/headings";
import { renderLlmsFull } from "../../lib/docs/llms-full";
import { renderLlmsTxt } from "../../lib/docs/llms-txt";
import { parsePageMarkdown, renderPageMarkdown } from "../../lib/docs/page-markdown";
import { buildPagesManifest } from "../../lib/docs/pages-manifest";
import { publishedMarkdown } from "../../lib/docs/published-markdown";
import { docSections } from "../../lib/docs/sections";
import { defaultContentDir, loadDocPages, normalizeBody } from "../../lib/docs/source";
import { errorStatus } from "../../lib/errors/gateway-error";
import { extractCodeBlocks } from "./extract-snippets";

/** Checks over the real corpus in content/docs: completeness, links, honesty and drift. */

const base = "https://docs.example.com";
const pages = loadDocPages();
const bySlug = new Map(pages.map((page) => [page.slug, page]));

describe("the corpus", () => {
  it("has pages in every section and no page outside a known section", () => {
    const known = docSections.map((section) => section.id);
    expect(pages.filter((page) => !known.includes(page.section)).map((page) => page.slug)).toEqual([]);
    for (const section of known)
      expect(
        pages.some((page) => page.section === section),
        section,
      ).toBe(true);
  });

  it("covers what the docs must cover", () => {
    const required = [
      "introduction/what-is-pod-gateway",
      "introduction/how-it-works",
      "using/quickstart",
      "using/spend-controls",
      "using/funding",
      "using/x402-payments",
      "marketplace/routing",
      "marketplace/pricing",
      "providers/overview",
      "providers/agent",
      "providers/key-relays",
      "providers/bond-and-earnings",
      "api/errors",
      "resources/for-agents",
      ...["claude-code", "codex", "cursor", "opencode", "cline", "aider", "langchain"].map(
        (name) => `integrations/${name}`,
      ),
      ...["register", "balance", "chat-completions", "messages", "models", "admin-credits", "health"].map(
        (name) => `api/${name}`,
      ),
    ];
    expect(required.filter((slug) => !bySlug.has(slug))).toEqual([]);
  });

  it("has unique titles", () => {
    const titles = pages.map((page) => page.title);
    expect(titles.filter((title, index) => titles.indexOf(title) !== index)).toEqual([]);
  });

  it("says so on every page about a feature that is not finished", () => {
    for (const page of pages.filter((candidate) => candidate.status !== "available")) {
      const opening = page.body.split("\n").find((line) => line.trim() !== "") ?? "";
      const label = page.status === "planned" ? /Not built yet/ : /In progress/;
      expect(opening, `${page.filePath} must open with a callout`).toMatch(
        new RegExp(`^> \\*\\*${label.source}`),
      );
    }
  });
});

describe("machine-readable outputs", () => {
  const llmsTxt = renderLlmsTxt(pages, base);
  const llmsFull = renderLlmsFull(pages, base);
  const manifest = buildPagesManifest(pages, base, new Date());

  it.each(pages.map((page) => [page.slug, page] as const))(
    "%s appears in llms.txt, llms-full.txt and pages.json",
    (slug, page) => {
      const url = `${base}/docs/${slug}`;
      expect(llmsTxt).toContain(`- [${page.title}](${url}): ${page.description}`);
      expect(llmsFull).toContain(`# ${page.title}\n\nSource: ${url}\nDescription: ${page.description}\n\n`);
      expect(llmsFull).toContain(publishedMarkdown(page.body).trim());
      expect(manifest.pages).toContainEqual({
        slug,
        title: page.title,
        description: page.description,
        url,
        markdown: `${url}.md`,
      });
    },
  );

  it("gives every URL a page the app serves", () => {
    expect(manifest.page_count).toBe(pages.length);
    for (const entry of manifest.pages) {
      const match = /^https:\/\/docs\.example\.com\/docs\/([a-z0-9-]+)\/([a-z0-9-]+)$/.exec(entry.url);
      expect(match, entry.url).not.toBeNull();
      expect(bySlug.has(`${match?.[1]}/${match?.[2]}`)).toBe(true);
    }
  });

  it.each(pages.map((page) => [page.slug, page] as const))(
    "%s.md round-trips with its frontmatter",
    (_slug, page) => {
      const served = parsePageMarkdown(renderPageMarkdown(page, base));
      expect(served).toEqual({
        title: page.title,
        description: page.description,
        source: `${base}/docs/${page.slug}`,
        body: publishedMarkdown(page.body),
      });
      // The served body is what the author wrote (less the runner's fence directives), not a re-rendering.
      const raw = readFileSync(path.join(defaultContentDir(), `${page.slug}.mdx`), "utf8");
      expect(publishedMarkdown(normalizeBody(raw.replace(/^---\n[\s\S]*?\n---\n/, "")))).toBe(served.body);
    },
  );

  it("quotes the real page count on the page for agents", () => {
    const forAgents = bySlug.get("resources/for-agents");
    // Adding a page? Update the example pages.json on resources/for-agents to the new count.
    expect(forAgents?.body, "page_count in the for-agents example").toContain(
      `"page_count": ${pages.length},`,
    );
  });
});

/** Markdown links outside code, with the line they are on. */
function internalLinks(body: string): string[] {
  const withoutCode = extractCodeBlocks(body).reduce((text, block) => text.replace(block.code, ""), body);
  return [...withoutCode.replace(/`[^`\n]*`/g, "").matchAll(/\]\((\/[^)\s]*)\)/g)].map(
    (match) => match[1] ?? "",
  );
}

describe("links", () => {
  const machineFiles = new Set(["/llms.txt", "/llms-full.txt", "/api/pages.json"]);
  const sectionPaths = new Set(docSections.map((section) => `/docs/${section.id}`));

  it.each(pages.map((page) => [page.slug, page] as const))(
    "%s has no broken internal link",
    (_slug, page) => {
      const broken: string[] = [];
      for (const link of internalLinks(page.body)) {
        const [pathname = "", anchor] = link.split("#");
        if (
          pathname === "/" ||
          pathname === "/docs" ||
          machineFiles.has(pathname) ||
          sectionPaths.has(pathname)
        ) {
          if (anchor !== undefined) broken.push(link);
          continue;
        }
        const slug = /^\/docs\/(.+?)(\.md)?$/.exec(pathname)?.[1];
        const target = slug === undefined ? undefined : bySlug.get(slug);
        if (target === undefined) {
          broken.push(link);
          continue;
        }
        if (anchor !== undefined && !extractHeadings(target.body).some((heading) => heading.id === anchor)) {
          broken.push(link);
        }
      }
      expect(broken).toEqual([]);
    },
  );

  it("finds links at all (the checker is not vacuous)", () => {
    expect(pages.flatMap((page) => internalLinks(page.body)).length).toBeGreaterThan(50);
  });
});

/** Math.min does not take bigints. */
function lowest(values: bigint[]): bigint {
  return [...values].sort((left, right) => (left < right ? -1 : left > right ? 1 : 0))[0] ?? 0n;
}

describe("drift from the code", () => {
  it("lists every error type with its status on the errors page", () => {
    const errors = bySlug.get("api/errors")?.body ?? "";
    for (const [type, status] of Object.entries(errorStatus)) {
      expect(errors, type).toMatch(new RegExp(`\\| \`${status}\` \\| \`${type}\` \\|`));
    }
  });

  it("prices every model the gateway adds to the dataset as its additions do", () => {
    const pricing = bySlug.get("marketplace/pricing")?.body ?? "";
    const format = (value: bigint) => Number(value).toLocaleString("en-US");
    for (const model of gatewayAdditions) {
      if (model.kind === "image") {
        const row = pricing.split("\n").find((line) => line.startsWith(`| \`${model.id}\` |`));
        for (const rate of model.prices.flatMap((price) => price.images?.generate ?? []))
          expect(row, model.id).toContain(`${rate.quality} ${rate.size}: ${format(rate.microunits)}`);
        continue;
      }
      const input = lowest(model.prices.map((price) => price.inputPer1m));
      const output = lowest(model.prices.map((price) => price.outputPer1m));
      const row = pricing.split("\n").find((line) => line.startsWith(`| \`${model.id}\` |`));
      expect(row, model.id).toBeDefined();
      expect(row).toContain(`| ${format(input)} (`);
      expect(row).toContain(`| ${format(output)} (`);
      for (const price of model.prices) {
        expect(row, `${model.id} via ${price.provider}`).toContain(price.provider);
        expect(row).toContain(`${format(price.inputPer1m)} / ${format(price.outputPer1m)}`);
      }
    }
  });
});
