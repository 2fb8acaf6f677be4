import { HeadingSlugger } from "./headings";

/**
 * A rehype plugin that gives every heading an id from `HeadingSlugger`, the same function that
 * builds the table of contents from raw Markdown. Typed structurally so `lib/docs` needs no
 * hast type package.
 */

interface HastNode {
  type: string;
  tagName?: string;
  value?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

const headingTags = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

function textOf(node: HastNode): string {
  if (node.type === "text") return node.value ?? "";
  return (node.children ?? []).map(textOf).join("");
}

function visit(node: HastNode, slugger: HeadingSlugger): void {
  if (node.type === "element" && node.tagName !== undefined && headingTags.has(node.tagName)) {
    node.properties ??= {};
    if (node.properties.id === undefined) node.properties.id = slugger.slug(textOf(node));
    return;
  }
  for (const child of node.children ?? []) visit(child, slugger);
}

export function rehypeHeadingIds() {
  return (tree: HastNode): void => {
    visit(tree, new HeadingSlugger());
  };
}
