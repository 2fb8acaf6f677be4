import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { FrontmatterError, parseFrontmatter } from "./frontmatter";
import { slugPattern } from "./urls";

/**
 * The one loader of the docs corpus for the machine-readable outputs (`.md`, llms.txt,
 * llms-full.txt, pages.json). It reads the raw MDX from `content/docs` so those outputs are
 * the exact Markdown authors wrote; the HTML pages render the same files through contentlayer2.
 */

export const pageStatuses = ["available", "in-progress", "planned"] as const;
export type PageStatus = (typeof pageStatuses)[number];

const frontmatterSchema = z.strictObject({
  title: z.string().trim().min(1),
  description: z.string().trim().min(1),
  /** Position in the sidebar within the section; pages without one sort after, by title. */
  order: z.number().int().optional(),
  /** `in-progress`: being built now; `planned`: not built. Drives the badge beside the title. */
  status: z.enum(pageStatuses).default("available"),
});

export interface DocPage {
  /** `<section>/<page>`, also the URL path under `/docs/`. */
  slug: string;
  section: string;
  title: string;
  description: string;
  order: number | undefined;
  status: PageStatus;
  /** The raw Markdown body without frontmatter, leading blank lines removed, ending in one newline. */
  body: string;
  /** Path relative to the repository root, for error messages. */
  filePath: string;
}

export class DocsSourceError extends Error {
  override readonly name = "DocsSourceError";
}

/** `content/docs` under the working directory, where `next start`, vitest and contentlayer2 all run. */
export function defaultContentDir(): string {
  return path.join(process.cwd(), "content", "docs");
}

/** Normalises a body so `.md` output and round-trip checks do not depend on editor whitespace. */
export function normalizeBody(body: string): string {
  return `${body
    .replace(/\r\n/g, "\n")
    .replace(/^(?:[ \t]*\n)+/, "")
    .trimEnd()}\n`;
}

/** Parses one MDX source; `relativePath` is relative to the content directory, e.g. `using/quickstart.mdx`. */
export function parseDocPage(relativePath: string, source: string, displayPath = relativePath): DocPage {
  const slug = relativePath.replace(/\\/g, "/").replace(/\.mdx?$/, "");
  if (!slugPattern.test(slug)) {
    throw new DocsSourceError(`${displayPath}: a docs page must live at <section>/<page>.mdx in kebab-case`);
  }
  let parsed: ReturnType<typeof parseFrontmatter>;
  try {
    parsed = parseFrontmatter(source);
  } catch (error) {
    if (error instanceof FrontmatterError) throw new DocsSourceError(`${displayPath}: ${error.message}`);
    throw error;
  }
  const fields = frontmatterSchema.safeParse(parsed.data);
  if (!fields.success) {
    const problems = fields.error.issues.map(
      (issue) => `${issue.path.join(".") || "frontmatter"}: ${issue.message}`,
    );
    throw new DocsSourceError(`${displayPath}: invalid frontmatter (${problems.join("; ")})`);
  }
  const [section = ""] = slug.split("/");
  return {
    slug,
    section,
    title: fields.data.title,
    description: fields.data.description,
    order: fields.data.order,
    status: fields.data.status,
    body: normalizeBody(parsed.body),
    filePath: displayPath,
  };
}

/** Reads every `.mdx` page under `contentDir`, sorted by slug (the order of llms-full.txt and pages.json). */
export function loadDocPages(contentDir: string = defaultContentDir()): DocPage[] {
  // The corpus is read at run time from the checkout, not bundled: tell Turbopack not to trace it.
  const files = readdirSync(/*turbopackIgnore: true*/ contentDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".mdx"))
    .map((entry) => path.relative(contentDir, path.join(entry.parentPath, entry.name)));
  const pages = files.map((relativePath) =>
    parseDocPage(
      relativePath,
      readFileSync(path.join(/*turbopackIgnore: true*/ contentDir, relativePath), "utf8"),
      path.join("content", "docs", relativePath),
    ),
  );
  return pages.sort((left, right) => left.slug.localeCompare(right.slug));
}

let cached: { pages: readonly DocPage[]; loadedAt: Date } | undefined;

/**
 * The corpus, read once per process. The docs ship with the build, so re-reading per request
 * would only cost time; `loadedAt` doubles as the `generated_at` of pages.json.
 */
export function getDocCorpus(): { pages: readonly DocPage[]; loadedAt: Date } {
  cached ??= { pages: loadDocPages(), loadedAt: new Date() };
  return cached;
}
