#!/usr/bin/env node
// The slowest test files of a run, from vitest's JSON reports: `.ci/run` sets TEST_TIMINGS_DIR
// per pass (vitest.config.ts then writes one report per vitest process into it) and calls this
// with the parent folder at the end. Prints per pass its N slowest files and their wall time.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const [folder, countArgument = "12"] = process.argv.slice(2);
if (!folder) {
  console.error("usage: slowest-test-files.mjs <timings folder> [count]");
  process.exit(2);
}
const count = Number(countArgument);
const root = path.resolve(import.meta.dirname, "..");

for (const pass of readdirSync(folder).sort()) {
  const passFolder = path.join(folder, pass);
  if (!statSync(passFolder).isDirectory()) continue;
  const files = readdirSync(passFolder)
    .filter((name) => name.endsWith(".json"))
    .flatMap((name) => JSON.parse(readFileSync(path.join(passFolder, name), "utf8")).testResults ?? [])
    .map((result) => ({
      file: path.relative(root, result.name),
      seconds: (result.endTime - result.startTime) / 1000,
    }))
    .sort((a, b) => b.seconds - a.seconds);
  const total = files.reduce((sum, one) => sum + one.seconds, 0);
  console.log(
    `slowest test files, ${pass} (${files.length} files, ${total.toFixed(0)} s summed over parallel workers):`,
  );
  for (const one of files.slice(0, count))
    console.log(`${one.seconds.toFixed(1).padStart(8)} s  ${one.file}`);
}
