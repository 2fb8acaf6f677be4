import { buildNavigation } from "./navigation";
import { publishedMarkdown } from "./published-markdown";
import { docsSite } from "./site";
import type { DocPage } from "./source";
import { machinePaths, normalizeBaseUrl, pageUrl } from "./urls";

type CorpusPage = Pick<DocPage, "slug" | "section" | "title" | "description" | "order" | "status" | "body">;

/**
 * `/llms-full.txt`: every page's Markdown in the navigation's reading order (introduction first), each introduced by its title, its
 * canonical URL and its description, separated by `---` rules, so a crawler gets the whole
 * site in one request and can still cite the page each passage came from.
 */
export function renderLlmsFull(pages: readonly CorpusPage[], baseUrl: string): string {
  const base = normalizeBaseUrl(baseUrl);
  const sorted = buildNavigation(pages).flatMap((section) => section.pages);
  const parts = [
    `# ${docsSite.name} — full content`,
    "",
    `> ${docsSite.docsName}: the full Markdown corpus, concatenated. ${sorted.length} pages. See ${base}${machinePaths.llmsIndex} for the index.`,
    "",
    `Source: ${base}`,
    `Index: ${base}${machinePaths.llmsIndex}`,
    "",
    "---",
    "",
  ];
  for (const page of sorted) {
    parts.push(
      `# ${page.title}`,
      "",
      `Source: ${pageUrl(base, page.slug)}`,
      `Description: ${page.description}`,
      "",
    );
    parts.push(publishedMarkdown(page.body).trimEnd(), "", "---", "");
  }
  return parts.join("\n");
}
