import { describe, expect, it } from "vitest";
import { FrontmatterError, parseFrontmatter, serializeFrontmatter } from "../../lib/docs/frontmatter";
import { extractHeadings, slugifyHeading } from "../../lib/docs/headings";
import { renderLlmsFull } from "../../lib/docs/llms-full";
import { renderLlmsTxt } from "../../lib/docs/llms-txt";
import { buildNavigation, neighbours } from "../../lib/docs/navigation";
import { parsePageMarkdown, renderPageMarkdown } from "../../lib/docs/page-markdown";
import { buildPagesManifest, renderPagesManifest } from "../../lib/docs/pages-manifest";
import { publishedMarkdown } from "../../lib/docs/published-markdown";
import { buildSearchIndex, searchDocs, splitLlmsFull } from "../../lib/docs/search";
import { type DocPage, DocsSourceError, parseDocPage } from "../../lib/docs/source";

const base = "https://docs.example.com/";

function page(slug: string, title: string, body: string, extra: Partial<DocPage> = {}): DocPage {
  const [section = ""] = slug.split("/");
  return {
    slug,
    section,
    title,
    description: `About ${title.toLowerCase()}.`,
    order: undefined,
    status: "available",
    body,
    filePath: `content/docs/${slug}.mdx`,
    ...extra,
  };
}

const pages = [
  page("using/quickstart", "Quickstart", "Start here.\n\n## Register\n\nCall `POST /v1/register`.\n", {
    order: 1,
  }),
  page("using/funding", "Funding", "Top up.\n", { order: 2 }),
  page("api/errors", "Errors", "## Envelopes\n\nJSON.\n\n---\n\nA rule above.\n"),
  page("zeta/extra", "Extra", "Unknown section.\n"),
];

describe("frontmatter", () => {
  it("reads quoted, bare, numeric and boolean values", () => {
    const parsed = parseFrontmatter(
      "---\ntitle: \"Say \\\"hi\\\"\"\ndescription: It's: fine\norder: 3\ndraft: false\nnote: 'it''s'\n---\nBody\n",
    );
    expect(parsed.data).toEqual({
      title: 'Say "hi"',
      description: "It's: fine",
      order: 3,
      draft: false,
      note: "it's",
    });
    expect(parsed.body).toBe("Body\n");
  });

  it("returns the whole source as body when there is no frontmatter", () => {
    expect(parseFrontmatter("# Title\n")).toEqual({ data: {}, body: "# Title\n" });
  });

  it("rejects nested YAML instead of guessing", () => {
    expect(() => parseFrontmatter("---\ntags:\n  - a\n---\n")).toThrow(FrontmatterError);
  });

  it("serializes strings as JSON so any title survives", () => {
    const text = serializeFrontmatter([
      ["title", 'A "quoted": title', "quoted"],
      ["source", "https://x/y", "bare"],
    ]);
    expect(text).toBe('---\ntitle: "A \\"quoted\\": title"\nsource: https://x/y\n---\n');
    expect(parseFrontmatter(text).data).toEqual({ title: 'A "quoted": title', source: "https://x/y" });
  });
});

describe("parseDocPage", () => {
  const source =
    '---\ntitle: "Routing"\ndescription: "How a source is chosen."\norder: 2\nstatus: "in-progress"\n---\n\n\n## Modes\n';

  it("validates frontmatter and normalises the body", () => {
    const parsed = parseDocPage("marketplace/routing.mdx", source);
    expect(parsed).toMatchObject({
      slug: "marketplace/routing",
      section: "marketplace",
      order: 2,
      status: "in-progress",
      body: "## Modes\n",
    });
  });

  it("rejects missing descriptions, unknown keys and bad slugs", () => {
    expect(() => parseDocPage("a/b.mdx", '---\ntitle: "T"\n---\n')).toThrow(DocsSourceError);
    expect(() => parseDocPage("a/b.mdx", '---\ntitle: "T"\ndescription: "D"\ncolour: red\n---\n')).toThrow(
      /colour/,
    );
    expect(() => parseDocPage("Top.mdx", '---\ntitle: "T"\ndescription: "D"\n---\n')).toThrow(/section/);
    expect(() => parseDocPage("a/b/c.mdx", '---\ntitle: "T"\ndescription: "D"\n---\n')).toThrow(
      DocsSourceError,
    );
  });
});

describe("llms.txt", () => {
  const text = renderLlmsTxt(pages, base);

  it("starts with the title, summary and pointers to the other machine files", () => {
    const lines = text.split("\n");
    expect(lines[0]).toBe("# Pod Gateway");
    expect(lines[2]).toMatch(/^> Pod Gateway is /);
    expect(text).toContain("https://docs.example.com/docs/using/quickstart.md");
    expect(text).toContain("https://docs.example.com/llms-full.txt");
    expect(text).toContain("https://docs.example.com/api/pages.json");
  });

  it("groups by section in the declared order, unknown sections last, entries as the navigation orders them", () => {
    const headings = text.split("\n").filter((line) => line.startsWith("## "));
    expect(headings).toEqual(["## Using Pod Gateway", "## API reference", "## Zeta"]);
    const using = text.slice(text.indexOf("## Using"), text.indexOf("## API"));
    expect(using.indexOf("[Quickstart]")).toBeLessThan(using.indexOf("[Funding]"));
    expect(text).toContain(
      "- [Quickstart](https://docs.example.com/docs/using/quickstart): About quickstart.",
    );
  });
});

describe("llms-full.txt", () => {
  const text = renderLlmsFull(pages, base);

  it("has a header with the page count and index", () => {
    expect(text.startsWith("# Pod Gateway — full content\n\n> ")).toBe(true);
    expect(text).toContain("4 pages");
    expect(text).toContain(
      "Source: https://docs.example.com\nIndex: https://docs.example.com/llms.txt\n\n---\n",
    );
  });

  it("concatenates every page in the navigation's reading order with its source and description", () => {
    const order = ["Quickstart", "Funding", "Errors", "Extra"].map((title) =>
      text.indexOf(`# ${title}\n\nSource: `),
    );
    expect(order.every((position) => position > 0)).toBe(true);
    expect([...order].sort((left, right) => left - right)).toEqual(order);
    expect(text).toContain(
      "# Quickstart\n\nSource: https://docs.example.com/docs/using/quickstart\nDescription: About quickstart.\n\nStart here.",
    );
    expect(text.endsWith("---\n")).toBe(true);
  });
});

describe("pages.json", () => {
  const manifest = buildPagesManifest(pages, base, new Date("2026-01-02T03:04:05.000Z"));

  it("has the spec's fields", () => {
    expect(Object.keys(manifest)).toEqual([
      "site",
      "url",
      "description",
      "generated_at",
      "page_count",
      "llms_index",
      "llms_full",
      "pages",
    ]);
    expect(manifest).toMatchObject({
      site: "Pod Gateway Docs",
      url: "https://docs.example.com",
      generated_at: "2026-01-02T03:04:05.000Z",
      page_count: 4,
      llms_index: "https://docs.example.com/llms.txt",
      llms_full: "https://docs.example.com/llms-full.txt",
    });
  });

  it("lists pages in reading order with their HTML and Markdown URLs", () => {
    expect(manifest.pages.map((entry) => entry.slug)).toEqual([
      "using/quickstart",
      "using/funding",
      "api/errors",
      "zeta/extra",
    ]);
    expect(manifest.pages[0]).toEqual({
      slug: "using/quickstart",
      title: "Quickstart",
      description: "About quickstart.",
      url: "https://docs.example.com/docs/using/quickstart",
      markdown: "https://docs.example.com/docs/using/quickstart.md",
    });
  });

  it("is pretty-printed JSON", () => {
    const text = renderPagesManifest(manifest);
    expect(text).toContain('\n  "site": "Pod Gateway Docs",\n');
    expect(JSON.parse(text)).toEqual(manifest);
  });
});

describe("page Markdown", () => {
  it("round-trips title, description, source and body", () => {
    const original = page(
      "using/quickstart",
      'Quick "start": go',
      "Body with `code`.\n\n```bash\necho hi\n```\n",
    );
    const text = renderPageMarkdown(original, base);
    expect(text.startsWith('---\ntitle: "Quick \\"start\\": go"\n')).toBe(true);
    expect(text).toContain("\nsource: https://docs.example.com/docs/using/quickstart\n---\n\nBody");
    expect(parsePageMarkdown(text)).toEqual({
      title: original.title,
      description: original.description,
      source: "https://docs.example.com/docs/using/quickstart",
      body: original.body,
    });
  });
});

describe("navigation", () => {
  it("orders sections as declared and pages by order, then title", () => {
    const sections = buildNavigation(pages);
    expect(sections.map((section) => section.id)).toEqual(["using", "api", "zeta"]);
    expect(sections[0]?.pages.map((entry) => entry.slug)).toEqual(["using/quickstart", "using/funding"]);
  });

  it("finds the previous and next page across sections", () => {
    expect(neighbours(pages, "using/funding")).toMatchObject({
      previous: { slug: "using/quickstart" },
      next: { slug: "api/errors" },
    });
    expect(neighbours(pages, "using/quickstart").previous).toBeUndefined();
  });
});

describe("headings", () => {
  it("slugs like GitHub and numbers repeats", () => {
    expect(slugifyHeading("Reading the gateway's headers")).toBe("reading-the-gateways-headers");
    expect(slugifyHeading("Dashboard (not built yet)")).toBe("dashboard-not-built-yet");
    const headings = extractHeadings(
      "## Errors\n\n```bash\n## not a heading\n```\n\n### `X-Pod-Route` header\n\n## Errors\n",
    );
    expect(headings).toEqual([
      { depth: 2, text: "Errors", id: "errors" },
      { depth: 3, text: "X-Pod-Route header", id: "x-pod-route-header" },
      { depth: 2, text: "Errors", id: "errors-1" },
    ]);
  });
});

describe("search", () => {
  const manifest = buildPagesManifest(pages, base, new Date(0));
  const corpus = renderLlmsFull(pages, base);

  it("splits llms-full.txt back into page bodies", () => {
    const split = splitLlmsFull(corpus, manifest.pages);
    const bodyOf = (slug: string) =>
      publishedMarkdown(pages.find((entry) => entry.slug === slug)?.body ?? "").trim();
    expect(split.map((entry) => [entry.slug, entry.body])).toEqual(
      manifest.pages.map((entry) => [entry.slug, bodyOf(entry.slug)]),
    );
  });

  it("ranks title matches first and points at the matching heading", () => {
    const index = buildSearchIndex(splitLlmsFull(corpus, manifest.pages));
    const results = searchDocs(index, "register");
    expect(results[0]).toMatchObject({ slug: "using/quickstart", heading: { id: "register" } });
    expect(searchDocs(index, "funding")[0]?.slug).toBe("using/funding");
    expect(searchDocs(index, "nothing-matches-this")).toEqual([]);
    expect(searchDocs(index, "   ")).toEqual([]);
  });
});
