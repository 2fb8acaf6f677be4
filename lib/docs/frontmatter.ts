/**
 * A deliberately small frontmatter reader for the docs corpus. Our pages carry only flat
 * `key: value` pairs (title, description, order, status), so a full YAML parser would add a
 * dependency and a second dialect to reason about. Anything richer is rejected loudly rather
 * than half-parsed, so a page can never publish a wrong title.
 */

type FrontmatterValue = string | number | boolean;

export interface ParsedFrontmatter {
  data: Record<string, FrontmatterValue>;
  /** Everything after the closing `---` line, unchanged. */
  body: string;
}

export class FrontmatterError extends Error {
  override readonly name = "FrontmatterError";
}

const fencePattern = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Splits `source` into its frontmatter fields and body; a source without frontmatter has empty data. */
export function parseFrontmatter(source: string): ParsedFrontmatter {
  const match = fencePattern.exec(source);
  if (match === null) return { data: {}, body: source };
  const block = match[1] ?? "";
  const data: Record<string, FrontmatterValue> = {};
  for (const [index, rawLine] of block.split(/\r?\n/).entries()) {
    const line = rawLine.trimEnd();
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const separator = line.indexOf(":");
    if (separator <= 0 || /^\s/.test(line)) {
      throw new FrontmatterError(`frontmatter line ${index + 1} is not a flat "key: value" pair: ${rawLine}`);
    }
    const key = line.slice(0, separator).trim();
    data[key] = parseScalar(line.slice(separator + 1).trim(), index + 1);
  }
  return { data, body: source.slice(match[0].length) };
}

function parseScalar(raw: string, lineNumber: number): FrontmatterValue {
  if (raw.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value === "string") return value;
    } catch {
      // fall through to the error below
    }
    throw new FrontmatterError(`frontmatter line ${lineNumber}: invalid double-quoted string ${raw}`);
  }
  if (raw.startsWith("'")) {
    if (raw.length < 2 || !raw.endsWith("'")) {
      throw new FrontmatterError(`frontmatter line ${lineNumber}: unterminated single-quoted string ${raw}`);
    }
    // YAML single quotes escape a quote by doubling it.
    return raw.slice(1, -1).replaceAll("''", "'");
  }
  if (raw === "true") return true;
  if (raw === "false") return false;
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (raw === "" || /^[[{|>&*!]/.test(raw)) {
    throw new FrontmatterError(
      `frontmatter line ${lineNumber}: unsupported YAML value ${JSON.stringify(raw)}`,
    );
  }
  return raw;
}

/**
 * Writes fields as frontmatter. Strings are JSON-quoted, which is valid YAML and survives any
 * character a title or description may contain; `source`-style URLs may be left bare.
 */
export function serializeFrontmatter(
  fields: ReadonlyArray<readonly [string, string, "quoted" | "bare"]>,
): string {
  const lines = fields.map(
    ([key, value, style]) => `${key}: ${style === "quoted" ? JSON.stringify(value) : value}`,
  );
  return ["---", ...lines, "---", ""].join("\n");
}
