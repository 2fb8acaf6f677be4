import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * What `npm run build` reads: a change to any of these makes `.next` stale. Route files bundle
 * the API code (lib/ and what it imports), the docs come from content/, and the lock decides
 * which Next, React and wallet code is bundled.
 */
const buildInputs = [
  "app",
  "components",
  "content",
  "lib",
  "packages",
  "public",
  "contentlayer.config.ts",
  "next.config.ts",
  "tsconfig.json",
  "package-lock.json",
];

/** Written into `.next` after a successful build: the hash of the inputs it was built from. */
const stampFile = path.join(".next", "pod-build-inputs");

/** Tests are not bundled, so editing one does not make the pages stale. */
function isInput(name: string): boolean {
  return !name.startsWith(".") && name !== "node_modules" && !/\.test\.tsx?$/.test(name);
}

function listFiles(root: string, relative: string, into: string[]): void {
  const absolute = path.join(root, relative);
  for (const entry of readdirSync(absolute, { withFileTypes: true })) {
    if (!isInput(entry.name)) continue;
    const child = path.join(relative, entry.name);
    if (entry.isDirectory()) listFiles(root, child, into);
    else if (entry.isFile()) into.push(child);
  }
}

/** sha256 over the build inputs' paths and contents (about 1,000 files: tens of milliseconds). */
function buildInputsHash(root: string): string {
  const files: string[] = [];
  for (const input of buildInputs) {
    const absolute = path.join(root, input);
    if (!existsSync(absolute)) continue;
    if (statSync(absolute).isDirectory()) listFiles(root, input, files);
    else files.push(input);
  }
  files.sort();
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(file);
    hash.update("\0");
    hash.update(readFileSync(path.join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

type BuildState = "fresh" | "stale" | "missing";

/** Whether `.next` holds a finished build of the current inputs. */
export function buildState(root: string): BuildState {
  const stamp = path.join(root, stampFile);
  if (!existsSync(path.join(root, ".next", "BUILD_ID")) || !existsSync(stamp)) return "missing";
  return readFileSync(stamp, "utf8").trim() === buildInputsHash(root) ? "fresh" : "stale";
}

/** Records that `.next` was built from the current inputs (`npm run build` runs this last). */
export function writeBuildStamp(root: string): void {
  writeFileSync(path.join(root, stampFile), `${buildInputsHash(root)}\n`);
}
