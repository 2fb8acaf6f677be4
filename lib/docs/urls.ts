/** URL helpers shared by the HTML pages and the machine-readable endpoints. */

/** A docs page slug is `<section>/<page>`, lowercase kebab-case, matching `app/docs/[section]/[page]`. */
export const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*\/[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Strips trailing slashes so that joining never produces `//`. */
export function normalizeBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}

/** Site-relative path of a page's HTML. */
function pagePath(slug: string): string {
  return `/docs/${slug}`;
}

/** Site-relative path of a page's raw Markdown. */
export function markdownPath(slug: string): string {
  return `${pagePath(slug)}.md`;
}

/** Canonical HTML URL of a page, the `source` of its Markdown. */
export function pageUrl(baseUrl: string, slug: string): string {
  return `${normalizeBaseUrl(baseUrl)}${pagePath(slug)}`;
}

export function markdownUrl(baseUrl: string, slug: string): string {
  return `${normalizeBaseUrl(baseUrl)}${markdownPath(slug)}`;
}

export const machinePaths = {
  llmsIndex: "/llms.txt",
  llmsFull: "/llms-full.txt",
  pagesManifest: "/api/pages.json",
} as const;
