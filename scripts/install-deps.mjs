#!/usr/bin/env node
// `npm run setup`: installs node_modules with `npm ci` only when it does not already match
// package-lock.json, so the README's test command costs the tests, not a second install.
// `--stamp` (run by npm's postinstall after every `npm ci` / `npm install`) records what was
// installed: the lock's hash, whether dev dependencies were left out, and Node's ABI (native
// addons are built for one). Plain Node: it runs before anything is installed.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const stampPath = path.join(root, "node_modules", ".pod-install-stamp");

function lockHash() {
  return createHash("sha256")
    .update(readFileSync(path.join(root, "package-lock.json")))
    .digest("hex");
}

/** What an install of the current lock with these omissions on this Node looks like. */
function expectedStamp(omit) {
  return JSON.stringify({
    lock: lockHash(),
    omit,
    abi: process.versions.modules,
    platform: process.platform,
    arch: process.arch,
  });
}

/** Each direct dependency is present: catches a node_modules trimmed or edited by hand since. */
function directDependenciesPresent(includeDev) {
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const names = Object.keys({ ...manifest.dependencies, ...(includeDev ? manifest.devDependencies : {}) });
  return names.every((name) => existsSync(path.join(root, "node_modules", name, "package.json")));
}

if (process.argv.includes("--stamp")) {
  // npm passes --omit (and --production) to lifecycle scripts as npm_config_omit.
  const omit = (process.env.npm_config_omit ?? "")
    .split(/[\s,]+/)
    .filter(Boolean)
    .sort()
    .join(",");
  writeFileSync(stampPath, expectedStamp(omit));
  process.exit(0);
}

const installed = existsSync(stampPath) ? readFileSync(stampPath, "utf8") : undefined;
if (installed === expectedStamp("") && directDependenciesPresent(true)) {
  console.log("node_modules matches package-lock.json: nothing to install");
  process.exit(0);
}
console.log(
  installed === undefined
    ? "installing node_modules (npm ci)..."
    : "node_modules does not match package-lock.json (or lacks dev dependencies): reinstalling (npm ci)...",
);
const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
process.exit(result.status ?? 1);
