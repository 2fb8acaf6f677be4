import { buildNavigation } from "./navigation";
import { docsSite } from "./site";
import type { DocPage } from "./source";
import { machinePaths, markdownUrl, normalizeBaseUrl, pageUrl } from "./urls";

/** `/api/pages.json` (spec 2.6). `markdown` is the URL of the page's raw Markdown. */
export interface PagesManifest {
  site: string;
  url: string;
  description: string;
  generated_at: string;
  page_count: number;
  llms_index: string;
  llms_full: string;
  pages: Array<{ slug: string; title: string; description: string | null; url: string; markdown: string }>;
}

type ManifestPage = Pick<DocPage, "slug" | "section" | "title" | "description" | "order" | "status">;

export function buildPagesManifest(
  pages: readonly ManifestPage[],
  baseUrl: string,
  generatedAt: Date,
): PagesManifest {
  const base = normalizeBaseUrl(baseUrl);
  // Reading order, like llms.txt and llms-full.txt.
  const entries = buildNavigation(pages)
    .flatMap((section) => section.pages)
    .map((page) => ({
      slug: page.slug,
      title: page.title,
      description: page.description === "" ? null : page.description,
      url: pageUrl(base, page.slug),
      markdown: markdownUrl(base, page.slug),
    }));
  return {
    site: docsSite.docsName,
    url: base,
    description: docsSite.manifestDescription,
    generated_at: generatedAt.toISOString(),
    page_count: entries.length,
    llms_index: `${base}${machinePaths.llmsIndex}`,
    llms_full: `${base}${machinePaths.llmsFull}`,
    pages: entries,
  };
}

/** Pretty-printed with two spaces, as the reference publishes it, and newline-terminated. */
export function renderPagesManifest(manifest: PagesManifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
