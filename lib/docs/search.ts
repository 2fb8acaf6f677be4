import { type DocHeading, extractHeadings, markdownInlineToText } from "./headings";

/**
 * Client-side search over the docs. The browser fetches `/api/pages.json` (titles, descriptions,
 * URLs) and `/llms-full.txt` (bodies) once, splits the corpus back into pages and ranks them
 * here. Pure functions, so ranking is unit-tested without a browser.
 */

export interface SearchablePage {
  slug: string;
  title: string;
  description: string;
  body: string;
}

interface IndexedPage {
  slug: string;
  title: string;
  description: string;
  headings: DocHeading[];
  text: string;
  lower: { title: string; description: string; headings: string[]; text: string };
}

export interface SearchResult {
  slug: string;
  title: string;
  /** The best matching heading, to jump straight to it. */
  heading: DocHeading | undefined;
  snippet: string;
}

/**
 * Recovers each page's body from llms-full.txt. Pages appear in the manifest's order, each
 * introduced by `# <title>` and `Source: <url>`; the URL is unique, so the split is exact.
 */
export function splitLlmsFull(
  corpus: string,
  pages: ReadonlyArray<{ slug: string; title: string; description: string | null; url: string }>,
): SearchablePage[] {
  const starts = pages.map((page) => corpus.indexOf(`\n# ${page.title}\n\nSource: ${page.url}\n`));
  return pages.map((page, index) => {
    const start = starts[index] ?? -1;
    if (start === -1)
      return { slug: page.slug, title: page.title, description: page.description ?? "", body: "" };
    const end = starts.slice(index + 1).find((candidate) => candidate > start) ?? corpus.length;
    const block = corpus.slice(start, end);
    const afterHeader = block.replace(/^\n# .*\n\nSource: .*\n(?:Description: .*\n)?\n?/, "");
    return {
      slug: page.slug,
      title: page.title,
      description: page.description ?? "",
      body: afterHeader.replace(/\n---\n\s*$/, "").trim(),
    };
  });
}

/** Markdown to searchable prose: keeps code text (people search for header names), drops syntax. */
function markdownToSearchText(markdown: string): string {
  return markdown
    .split("\n")
    .filter((line) => !/^\s*(`{3,}|~{3,})/.test(line) && !/^\s*\|?\s*:?-{3,}/.test(line))
    .map((line) =>
      markdownInlineToText(line.replace(/^\s*(#{1,6}|>|[-*+]|\d+\.)\s+/, "").replace(/\|/g, " ")),
    )
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}

export function buildSearchIndex(pages: readonly SearchablePage[]): IndexedPage[] {
  return pages.map((page) => {
    const headings = extractHeadings(page.body);
    const text = markdownToSearchText(page.body);
    return {
      slug: page.slug,
      title: page.title,
      description: page.description,
      headings,
      text,
      lower: {
        title: page.title.toLowerCase(),
        description: page.description.toLowerCase(),
        headings: headings.map((heading) => heading.text.toLowerCase()),
        text: text.toLowerCase(),
      },
    };
  });
}

function snippetAround(text: string, lowerText: string, term: string, radius = 80): string {
  const at = lowerText.indexOf(term);
  if (at === -1) return text.slice(0, radius * 2).trim();
  const start = Math.max(0, at - radius);
  const end = Math.min(text.length, at + term.length + radius);
  return `${start > 0 ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`;
}

/** Pages containing every term of `query`, best first: title, then heading, description, body. */
export function searchDocs(index: readonly IndexedPage[], query: string, limit = 8): SearchResult[] {
  const terms = query
    .toLowerCase()
    .split(/\s+/)
    .filter((term) => term.length > 0);
  if (terms.length === 0) return [];
  const scored: Array<{ page: IndexedPage; score: number; heading: DocHeading | undefined }> = [];
  for (const page of index) {
    let score = 0;
    let matchedAll = true;
    for (const term of terms) {
      let termScore = 0;
      if (page.lower.title.includes(term)) termScore += page.lower.title.startsWith(term) ? 15 : 10;
      if (page.lower.headings.some((heading) => heading.includes(term))) termScore += 6;
      if (page.lower.description.includes(term)) termScore += 4;
      const occurrences = page.lower.text.split(term).length - 1;
      if (occurrences > 0) termScore += 1 + Math.min(occurrences, 10) * 0.2;
      if (termScore === 0) {
        matchedAll = false;
        break;
      }
      score += termScore;
    }
    if (!matchedAll) continue;
    const headingIndex = page.lower.headings.findIndex((heading) =>
      terms.every((term) => heading.includes(term)),
    );
    scored.push({ page, score, heading: headingIndex === -1 ? undefined : page.headings[headingIndex] });
  }
  scored.sort((left, right) => right.score - left.score || left.page.title.localeCompare(right.page.title));
  return scored.slice(0, limit).map(({ page, heading }) => ({
    slug: page.slug,
    title: page.title,
    heading,
    snippet: snippetAround(page.text, page.lower.text, terms[0] ?? ""),
  }));
}
