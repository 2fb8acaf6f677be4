import { cpSync, existsSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * Next's standalone output (`output: "standalone"`): `.next/standalone` holds the pages' server
 * with the few files of Next, React and their externals it needs, traced at build time. A server
 * pruned to its production install (`npm prune --omit=dev`, where Next is a dev dependency)
 * serves the pages from there, so Next and its 100 MB SWC binary are not in the install.
 */
const standaloneDir = path.join(".next", "standalone");

type NextFactory = typeof import("next").default;

/** Next's factory as the standalone output carries it, and the directory to give it. */
export interface StandaloneNext {
  next: NextFactory;
  dir: string;
}

/**
 * The last step of `npm run build`: the standalone server serves `/_next/static` and `public/`
 * from its own directory, and `next build` leaves both out of it.
 */
export function completeStandalone(root: string): void {
  const standalone = path.join(root, standaloneDir);
  if (!existsSync(standalone)) return;
  for (const [from, to] of [
    [path.join(root, ".next", "static"), path.join(standalone, ".next", "static")],
    [path.join(root, "public"), path.join(standalone, "public")],
  ] as const) {
    rmSync(to, { recursive: true, force: true });
    if (existsSync(from)) cpSync(from, to, { recursive: true });
  }
}

/**
 * Next as the standalone output carries it, for an install without Next. Its config is the one
 * recorded at build time, handed over the way Next's own standalone server does (an environment
 * variable read instead of loading next.config.ts, which would need the SWC binary).
 */
export function loadStandaloneNext(root: string): StandaloneNext | undefined {
  const dir = path.join(root, standaloneDir);
  const serverFiles = path.join(dir, ".next", "required-server-files.json");
  if (!existsSync(serverFiles)) return undefined;
  const { config } = JSON.parse(readFileSync(serverFiles, "utf8")) as { config: unknown };
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(config);
  const next = createRequire(path.join(dir, "server.js"))("next") as NextFactory;
  return { next, dir };
}

/** Whether a failed `import("next")` means Next is not installed (a pruned production install). */
export function isNextMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}
