/**
 * Heading ids for the table of contents and for `#anchor` links. The same `HeadingSlugger`
 * names the ids in the rendered HTML (see `rehype-heading-ids.ts`), so a link checked here
 * lands on a real element there.
 */

export interface DocHeading {
  depth: 2 | 3;
  text: string;
  id: string;
}

/** GitHub-style heading id: lowercase, punctuation dropped, spaces to hyphens. */
export function slugifyHeading(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{Letter}\p{Number}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Hands out unique ids within one page: a repeated heading gets `-1`, `-2`, ... like GitHub. */
export class HeadingSlugger {
  private readonly seen = new Map<string, number>();

  slug(text: string): string {
    const base = slugifyHeading(text);
    let candidate = base;
    let count = this.seen.get(base) ?? 0;
    while (this.seen.has(candidate)) {
      count += 1;
      candidate = `${base}-${count}`;
    }
    this.seen.set(base, count);
    this.seen.set(candidate, 0);
    return candidate;
  }
}

/** Inline Markdown to the plain text a reader sees: code spans kept, links and emphasis unwrapped. */
export function markdownInlineToText(markdown: string): string {
  const codeSpans: string[] = [];
  const withoutCode = markdown.replace(/`([^`]*)`/g, (_match, code: string) => {
    codeSpans.push(code);
    return `\uE000${codeSpans.length - 1}\uE000`;
  });
  const plain = withoutCode
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(\*|_)(.+?)\1/g, "$2")
    .replace(/<[^>]+>/g, "");
  return plain.replace(/\uE000(\d+)\uE000/g, (_match, index: string) => codeSpans[Number(index)] ?? "");
}

/** The `##` and `###` headings of a Markdown body, outside fenced code. */
export function extractHeadings(markdown: string): DocHeading[] {
  const slugger = new HeadingSlugger();
  const headings: DocHeading[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const fenceMatch = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fenceMatch?.[1] !== undefined) {
      const marker = fenceMatch[1];
      if (fence === undefined) fence = marker;
      else if (marker.startsWith(fence)) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading?.[1] === undefined || heading[2] === undefined) continue;
    const text = markdownInlineToText(heading[2]);
    // Every heading takes an id so duplicates number the same way as in the HTML.
    const id = slugger.slug(text);
    const depth = heading[1].length;
    if (depth === 2 || depth === 3) headings.push({ depth, text, id });
  }
  return headings;
}
