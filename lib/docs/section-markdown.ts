import { serializeFrontmatter } from "./frontmatter";
import { buildNavigation, type NavPage } from "./navigation";
import { docSections } from "./sections";
import { docsSite } from "./site";
import { normalizeBaseUrl, pageUrl } from "./urls";

/**
 * The `.md` twins of the index pages: `/docs.md` (every section) and `/docs/<section>.md`
 * (one section's pages), so every HTML page of the docs has a Markdown source like the pages do.
 */
export function renderDocsIndexMarkdown(pages: readonly NavPage[], baseUrl: string): string {
  const base = normalizeBaseUrl(baseUrl);
  const lines = [
    serializeFrontmatter([
      ["title", docsSite.docsName, "quoted"],
      ["description", docsSite.summary, "quoted"],
      ["source", `${base}/docs`, "bare"],
    ]),
  ];
  for (const section of buildNavigation(pages)) {
    lines.push(`## [${section.title}](${base}/docs/${section.id})`, "");
    const summary = docSections.find((known) => known.id === section.id)?.summary;
    if (summary !== undefined) lines.push(summary, "");
    for (const page of section.pages)
      lines.push(`- [${page.title}](${pageUrl(base, page.slug)}): ${page.description}`);
    lines.push("");
  }
  return lines.join("\n");
}

/** Undefined when no page lives in `sectionId`. */
export function renderSectionMarkdown(
  pages: readonly NavPage[],
  sectionId: string,
  baseUrl: string,
): string | undefined {
  const base = normalizeBaseUrl(baseUrl);
  const section = buildNavigation(pages).find((candidate) => candidate.id === sectionId);
  if (section === undefined) return undefined;
  const summary = docSections.find((known) => known.id === sectionId)?.summary ?? section.title;
  const lines = [
    serializeFrontmatter([
      ["title", section.title, "quoted"],
      ["description", summary, "quoted"],
      ["source", `${base}/docs/${section.id}`, "bare"],
    ]),
  ];
  for (const page of section.pages)
    lines.push(`- [${page.title}](${pageUrl(base, page.slug)}): ${page.description}`);
  lines.push("");
  return lines.join("\n");
}
