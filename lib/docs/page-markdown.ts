import { parseFrontmatter, serializeFrontmatter } from "./frontmatter";
import { publishedMarkdown } from "./published-markdown";
import type { DocPage } from "./source";
import { normalizeBody } from "./source";
import { pageUrl } from "./urls";

type MarkdownPage = Pick<DocPage, "slug" | "title" | "description" | "body">;

/**
 * A page as served at `<page>.md`: frontmatter with `title`, `description` and `source` (the
 * canonical HTML URL), a blank line, then the body as written less the test runner's fence directives.
 */
export function renderPageMarkdown(page: MarkdownPage, baseUrl: string): string {
  const frontmatter = serializeFrontmatter([
    ["title", page.title, "quoted"],
    ["description", page.description, "quoted"],
    ["source", pageUrl(baseUrl, page.slug), "bare"],
  ]);
  return `${frontmatter}\n${publishedMarkdown(normalizeBody(page.body))}`;
}

export interface ServedMarkdown {
  title: string;
  description: string;
  source: string;
  body: string;
}

/** The inverse of `renderPageMarkdown`, for clients and for the round-trip tests. */
export function parsePageMarkdown(markdown: string): ServedMarkdown {
  const { data, body } = parseFrontmatter(markdown);
  const field = (key: string): string => {
    const value = data[key];
    if (typeof value !== "string") throw new Error(`markdown frontmatter has no string "${key}"`);
    return value;
  };
  return {
    title: field("title"),
    description: field("description"),
    source: field("source"),
    body: normalizeBody(body),
  };
}
