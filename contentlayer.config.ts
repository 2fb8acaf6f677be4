import { defineDocumentType, makeSource } from "contentlayer2/source-files";
import rehypePrettyCode, { type Options as PrettyCodeOptions } from "rehype-pretty-code";
import remarkGfm from "remark-gfm";
import { rehypeHeadingIds } from "./lib/docs/rehype-heading-ids";
import { pageStatuses } from "./lib/docs/source";

/**
 * contentlayer2 compiles `content/docs/**.mdx` for the HTML pages. It runs as its own build
 * step (`contentlayer2 build && next build`) because its webpack plugin does not work under
 * Turbopack. The machine-readable outputs read the same files raw through `lib/docs/source.ts`.
 */

export const Doc = defineDocumentType(() => ({
  name: "Doc",
  filePathPattern: "**/*.mdx",
  contentType: "mdx",
  fields: {
    title: { type: "string", required: true },
    description: { type: "string", required: true },
    order: { type: "number", required: false },
    status: { type: "enum", options: [...pageStatuses], default: "available" },
  },
  computedFields: {
    slug: { type: "string", resolve: (doc) => doc._raw.flattenedPath },
    section: { type: "string", resolve: (doc) => doc._raw.flattenedPath.split("/")[0] ?? "" },
  },
}));

const prettyCodeOptions: PrettyCodeOptions = {
  // Both themes are emitted as CSS variables; globals.css picks one per colour scheme.
  theme: { light: "github-light-default", dark: "github-dark-dimmed" },
  keepBackground: false,
  defaultLang: { block: "text" },
  // `norun` and `expect=<status>` steer the snippet runner in tests/docs; they are not display hints.
  filterMetaString: (meta) => meta.replace(/(^|\s)(norun|expect=\d{3})(?=\s|$)/g, " ").trim(),
};

export default makeSource({
  contentDirPath: "content/docs",
  documentTypes: [Doc],
  mdx: {
    remarkPlugins: [remarkGfm],
    rehypePlugins: [rehypeHeadingIds, [rehypePrettyCode, prettyCodeOptions]],
  },
});
