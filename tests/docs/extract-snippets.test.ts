import { describe, expect, it } from "vitest";
import { loadDocPages } from "../../lib/docs/source";
import { collectSnippets, conventionProblem, extractCodeBlocks, extractSnippets } from "./extract-snippets";

const page = (body: string) => ({ slug: "using/example", body });

describe("extractCodeBlocks", () => {
  it("reads language, meta, code and the fence line", () => {
    const blocks = extractCodeBlocks(
      [
        "Intro",
        "",
        '```bash expect=401 title="x"',
        "curl -sS $POD_BASE_URL/health",
        "```",
        "",
        "~~~json",
        "{}",
        "~~~",
      ].join("\n"),
    );
    expect(blocks).toEqual([
      { lang: "bash", meta: 'expect=401 title="x"', code: "curl -sS $POD_BASE_URL/health", line: 3 },
      { lang: "json", meta: "", code: "{}", line: 7 },
    ]);
  });

  it("keeps inner fences of a longer fence and strips list indentation", () => {
    const markdown = [
      "````md",
      "```bash",
      "curl x",
      "```",
      "````",
      "1. Step",
      "   ```text",
      "   https://x/v1",
      "   ```",
    ].join("\n");
    const blocks = extractCodeBlocks(markdown);
    expect(blocks.map((block) => block.code)).toEqual(["```bash\ncurl x\n```", "https://x/v1"]);
  });

  it("ignores an unclosed fence", () => {
    expect(extractCodeBlocks("```bash\ncurl x")).toEqual([]);
  });
});

describe("extractSnippets", () => {
  it("classifies curl and SDK blocks and ignores illustrations", () => {
    const snippets = extractSnippets(
      page(
        [
          "```bash",
          'curl -sS "$POD_BASE_URL/proxy/$POD_TOKEN/balance"',
          "```",
          "```bash norun",
          'export POD_BASE_URL="https://pod.example.com"',
          "```",
          "```ts",
          'import OpenAI from "openai";',
          // A TypeScript line as data: the template literal belongs to the snippet.
          [
            "new OpenAI({ baseURL: `$",
            "{process.env.POD_BASE_URL}/proxy/$",
            "{process.env.POD_TOKEN}/v1`, apiKey: 'pod' });",
          ].join(""),
          "```",
          "```python",
          "import openai",
          "```",
          "```js norun",
          'import Anthropic from "@anthropic-ai/sdk";',
          "```",
        ].join("\n"),
      ),
    );
    expect(
      snippets.map(({ kind, runnable, placeholders, index }) => ({ kind, runnable, placeholders, index })),
    ).toEqual([
      { kind: "curl", runnable: true, placeholders: ["POD_BASE_URL", "POD_TOKEN"], index: 1 },
      { kind: "sdk", runnable: true, placeholders: ["POD_BASE_URL", "POD_TOKEN"], index: 2 },
      { kind: "sdk", runnable: false, placeholders: [], index: 3 },
    ]);
  });

  it("reads expect=<status>", () => {
    const [snippet] = extractSnippets(page('```bash expect=404\ncurl -sS "$POD_BASE_URL/nope"\n```'));
    expect(snippet?.expectStatus).toBe(404);
  });

  it("flags snippets that break the placeholder convention", () => {
    const [hardcoded] = extractSnippets(page("```bash\ncurl http://localhost:3000/health\n```"));
    const [foreign] = extractSnippets(page('```bash\ncurl "$POD_BASE_URL/x" -H "X: $HOME"\n```'));
    const [fine] = extractSnippets(page('```bash\ncurl "$POD_BASE_URL/health"\n```'));
    expect(hardcoded && conventionProblem(hardcoded)).toMatch(/POD_BASE_URL/);
    expect(foreign && conventionProblem(foreign)).toMatch(/\$HOME/);
    expect(fine && conventionProblem(fine)).toBeUndefined();
  });
});

describe("the docs corpus", () => {
  const snippets = collectSnippets(loadDocPages());
  const runnable = snippets.filter((snippet) => snippet.runnable);

  it("has runnable curl and SDK examples for both API surfaces", () => {
    expect(runnable.filter((snippet) => snippet.kind === "curl").length).toBeGreaterThanOrEqual(15);
    const sdk = runnable.filter((snippet) => snippet.kind === "sdk");
    expect(sdk.some((snippet) => snippet.code.includes('from "openai"'))).toBe(true);
    expect(sdk.some((snippet) => snippet.code.includes('from "@anthropic-ai/sdk"'))).toBe(true);
    const quickstart = runnable.filter((snippet) => snippet.slug === "using/quickstart");
    expect(quickstart.map((snippet) => snippet.kind)).toEqual(expect.arrayContaining(["curl", "sdk"]));
  });

  it.each(
    runnable.map((snippet) => [`${snippet.slug} #${snippet.index} (line ${snippet.line})`, snippet] as const),
  )("%s follows the placeholder convention", (_name, snippet) => {
    expect(conventionProblem(snippet)).toBeUndefined();
  });
});
