import { buildNavigation } from "./navigation";
import { docsSite } from "./site";
import type { DocPage } from "./source";
import { machinePaths, markdownUrl, normalizeBaseUrl, pageUrl } from "./urls";

type IndexedPage = Pick<DocPage, "slug" | "section" | "title" | "description" | "order" | "status">;

/**
 * `/llms.txt` (llmstxt.org): a title, a one-line summary, where the raw Markdown lives, then one
 * `## Section` per section with `- [Title](url): description` entries in the order the site's
 * navigation shows them (introduction first), the layout the reference service publishes.
 */
export function renderLlmsTxt(pages: readonly IndexedPage[], baseUrl: string): string {
  const base = normalizeBaseUrl(baseUrl);
  const example = pages.find((page) => page.slug === "using/quickstart") ?? pages[0];
  const exampleMarkdown =
    example === undefined ? `${base}/docs/<section>/<page>.md` : markdownUrl(base, example.slug);
  const lines = [
    `# ${docsSite.name}`,
    "",
    `> ${docsSite.summary}`,
    "",
    `Every page below is available as raw Markdown by appending \`.md\` to its URL (e.g. ${exampleMarkdown}). The full corpus in a single file is at ${base}${machinePaths.llmsFull}, and a JSON manifest of every page is at ${base}${machinePaths.pagesManifest}.`,
    "",
  ];
  for (const section of buildNavigation(pages)) {
    lines.push(`## ${section.title}`, "");
    for (const page of section.pages) {
      lines.push(`- [${page.title}](${pageUrl(base, page.slug)}): ${page.description}`);
    }
    lines.push("");
  }
  return lines.join("\n");
}
