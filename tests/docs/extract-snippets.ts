/**
 * Pulls the example requests out of the docs so the test suite can run them against a real
 * gateway and the docs cannot drift from the code.
 *
 * Convention for authors:
 * - A ```bash (or sh/shell) block that calls `curl` is a runnable request. It reads the gateway
 *   from `$POD_BASE_URL`, the caller's funded token from `$POD_TOKEN` and the operator secret
 *   from `$ADMIN_TOKEN`; nothing else may be assumed.
 * - A ```ts/```js block that imports `openai`, `@anthropic-ai/sdk`, the Vercel AI SDK (`ai`,
 *   `@ai-sdk/*`) or LangChain (`@langchain/*`) is a runnable SDK example.
 *   It reads `process.env.POD_BASE_URL` and `process.env.POD_TOKEN`.
 * - `norun` in the fence's meta skips a block (setup lines, features not built yet, tools that
 *   are not installed). `expect=<status>` says every HTTP status the block receives must be
 *   that one; without it, every status must be 2xx.
 * - Other languages (json, text, toml, python, …) are illustrations and never run.
 */

export interface CodeBlock {
  lang: string;
  meta: string;
  code: string;
  /** 1-based line of the opening fence within the Markdown body. */
  line: number;
}

type SnippetKind = "curl" | "sdk";

export interface DocSnippet {
  slug: string;
  /** Position among the page's snippets, from 1, for stable test names. */
  index: number;
  kind: SnippetKind;
  lang: string;
  code: string;
  line: number;
  runnable: boolean;
  /** The only status the block may receive, when the block sets `expect=`. */
  expectStatus: number | undefined;
  /** Environment placeholders the block reads, sorted. */
  placeholders: string[];
}

const allowedShellPlaceholders = ["ADMIN_TOKEN", "POD_BASE_URL", "POD_TOKEN"] as const;
const allowedSdkPlaceholders = ["POD_BASE_URL", "POD_TOKEN"] as const;

const shellLangs = new Set(["bash", "sh", "shell", "zsh"]);
const scriptLangs = new Set(["ts", "typescript", "js", "javascript", "mjs", "mts"]);
const fencePattern = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)\s*(.*)$/;

/** Every fenced code block of a Markdown document, with its info string split into lang and meta. */
export function extractCodeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split("\n");
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = fencePattern.exec(lines[index] ?? "");
    if (open === null) continue;
    const indent = open[1] ?? "";
    const fence = open[2] ?? "```";
    const body: string[] = [];
    let closed = false;
    let cursor = index + 1;
    for (; cursor < lines.length; cursor += 1) {
      const line = lines[cursor] ?? "";
      const trimmed = line.trim();
      // A closing fence uses the opening character, at least as many times, and nothing else.
      if (/^(`{3,}|~{3,})$/.test(trimmed) && trimmed[0] === fence[0] && trimmed.length >= fence.length) {
        closed = true;
        break;
      }
      // Fences inside list items are indented; remove the opening fence's indentation from the body.
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    if (!closed) break;
    blocks.push({
      lang: (open[3] ?? "").toLowerCase(),
      meta: (open[4] ?? "").trim(),
      code: body.join("\n"),
      line: index + 1,
    });
    index = cursor;
  }
  return blocks;
}

function metaFlags(meta: string): { norun: boolean; expectStatus: number | undefined } {
  const tokens = meta.split(/\s+/);
  const expect = tokens
    .map((token) => /^expect=(\d{3})$/.exec(token)?.[1])
    .find((value) => value !== undefined);
  return { norun: tokens.includes("norun"), expectStatus: expect === undefined ? undefined : Number(expect) };
}

function shellPlaceholders(code: string): string[] {
  return [...code.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g)].map((match) => match[1] ?? "");
}

function sdkPlaceholders(code: string): string[] {
  return [...code.matchAll(/process\.env\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1] ?? "");
}

/** Classifies a block as a curl request, an SDK example, or neither. */
function snippetKind(block: Pick<CodeBlock, "lang" | "code">): SnippetKind | undefined {
  if (shellLangs.has(block.lang) && /(^|[\s;|&(])curl\s/m.test(block.code)) return "curl";
  if (
    scriptLangs.has(block.lang) &&
    /from\s+["'](openai|@anthropic-ai\/sdk|ai|@ai-sdk\/[a-z-]+|@langchain\/[a-z-]+)["']/.test(block.code)
  )
    return "sdk";
  return undefined;
}

/** The curl and SDK snippets of one page, runnable or not. */
export function extractSnippets(page: { slug: string; body: string }): DocSnippet[] {
  const snippets: DocSnippet[] = [];
  for (const block of extractCodeBlocks(page.body)) {
    const kind = snippetKind(block);
    if (kind === undefined) continue;
    const flags = metaFlags(block.meta);
    const names = kind === "curl" ? shellPlaceholders(block.code) : sdkPlaceholders(block.code);
    snippets.push({
      slug: page.slug,
      index: snippets.length + 1,
      kind,
      lang: block.lang,
      code: block.code,
      line: block.line,
      runnable: !flags.norun,
      expectStatus: flags.expectStatus,
      placeholders: [...new Set(names)].sort(),
    });
  }
  return snippets;
}

/** The snippets of a whole corpus, in slug order. */
export function collectSnippets(pages: ReadonlyArray<{ slug: string; body: string }>): DocSnippet[] {
  return pages.flatMap((page) => extractSnippets(page));
}

/** Why a runnable snippet breaks the convention, or undefined when it follows it. */
export function conventionProblem(snippet: DocSnippet): string | undefined {
  const allowed: readonly string[] =
    snippet.kind === "curl" ? allowedShellPlaceholders : allowedSdkPlaceholders;
  const unknown = snippet.placeholders.filter((name) => !allowed.includes(name));
  if (unknown.length > 0)
    return `reads ${unknown.map((name) => `$${name}`).join(", ")}; allowed: ${allowed.join(", ")}`;
  if (/https?:\/\/(localhost|127\.0\.0\.1|pod\.example\.com)/.test(snippet.code)) {
    return "hard-codes a gateway address instead of reading POD_BASE_URL";
  }
  if (
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.test(snippet.code) &&
    snippet.expectStatus === undefined
  ) {
    return "hard-codes a token instead of reading POD_TOKEN";
  }
  if (!snippet.placeholders.includes("POD_BASE_URL")) return "does not call the gateway through POD_BASE_URL";
  return undefined;
}

/**
 * Requests to the docs site itself (`.md`, llms.txt, pages.json) need the Next app, not the
 * API: the page-rendering e2e test runs these against `next start`.
 */
export function targetsDocsSite(snippet: DocSnippet): boolean {
  return (
    snippet.kind === "curl" &&
    /\$\{?POD_BASE_URL\}?\/(docs\/|llms(-full)?\.txt|api\/pages\.json)/.test(snippet.code) &&
    !/\/proxy\//.test(snippet.code)
  );
}
