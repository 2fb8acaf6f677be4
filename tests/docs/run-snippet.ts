import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { DocSnippet } from "./extract-snippets";

/** Runs one extracted docs example in a child process with only the documented placeholders set. */

export interface SnippetEnv {
  POD_BASE_URL: string;
  POD_TOKEN?: string;
  ADMIN_TOKEN?: string;
}

export interface SnippetRun {
  code: number;
  stdout: string;
  stderr: string;
  /** HTTP statuses of every curl call, in order (curl snippets only). */
  statuses: number[];
  /** Why the run does not meet the snippet's expectations, or undefined when it does. */
  problem: string | undefined;
}

const repoRoot = path.resolve(import.meta.dirname, "../..");
/** Inside the repository so `import "openai"` resolves from its node_modules; never committed. */
const sdkScratchDir = path.join(repoRoot, "node_modules/.cache/pod-docs-snippets");
const statusMarker = "__POD_HTTP_STATUS__:";

/** A command run to its end (60 s at most) with exactly `env`; its exit code, output and, when it could not start or was killed, why. */
export function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(command, args, { env, timeout: 60_000, maxBuffer: 8 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      // A run that could not start or was killed says so (a spawn error, the timeout's signal).
      const why =
        error === null || typeof error.code === "number"
          ? ""
          : `\n[harness: ${error.killed ? `killed by ${error.signal ?? "a signal"} after the 60 s timeout` : error.message}]`;
      resolve({ code, stdout, stderr: `${stderr}${why}` });
    });
  });
}

/** curl is wrapped so each call reports its status on stderr, leaving stdout free for pipes. */
function curlScript(code: string): string {
  return [
    "set -euo pipefail",
    `curl() { command curl --max-time 30 -w '%{stderr}${statusMarker}%{http_code}\\n' "$@"; }`,
    code,
    "",
  ].join("\n");
}

function statusProblem(snippet: DocSnippet, statuses: number[]): string | undefined {
  if (statuses.length === 0) return "no HTTP request was made";
  const wrong = statuses.filter((status) =>
    snippet.expectStatus === undefined ? status < 200 || status >= 300 : status !== snippet.expectStatus,
  );
  if (wrong.length === 0) return undefined;
  const wanted = snippet.expectStatus === undefined ? "2xx" : String(snippet.expectStatus);
  return `expected ${wanted}, got ${statuses.join(", ")}`;
}

export async function runSnippet(snippet: DocSnippet, placeholders: SnippetEnv): Promise<SnippetRun> {
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: "test",
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    ...placeholders,
  };
  if (snippet.kind === "curl") {
    const result = await runCommand("bash", ["-c", curlScript(snippet.code)], env);
    const statuses = [...result.stderr.matchAll(new RegExp(`${statusMarker}(\\d{3})`, "g"))].map((match) =>
      Number(match[1]),
    );
    const problem = result.code !== 0 ? `exit code ${result.code}` : statusProblem(snippet, statuses);
    return { ...result, statuses, problem };
  }
  mkdirSync(sdkScratchDir, { recursive: true });
  const file = path.join(sdkScratchDir, `${snippet.slug.replace(/\//g, "--")}-${snippet.index}.mts`);
  writeFileSync(file, snippet.code);
  const result = await runCommand(process.execPath, ["--import", "tsx", file], env);
  return { ...result, statuses: [], problem: result.code === 0 ? undefined : `exit code ${result.code}` };
}

/** A readable account of a failed run for the assertion message. */
export function describeRun(snippet: DocSnippet, run: SnippetRun): string {
  return [
    `${snippet.slug} line ${snippet.line}: ${run.problem ?? "ok"}`,
    "--- code",
    snippet.code,
    "--- stdout",
    run.stdout.slice(0, 2000),
    "--- stderr",
    run.stderr.slice(0, 2000),
  ].join("\n");
}
