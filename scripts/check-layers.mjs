#!/usr/bin/env node
// The layer rules, checked. Two tables: `floors`, the whole house bottom first (every source
// file outside tests belongs to a unit on one floor, and imports only its own unit or units on
// lower floors), `rules`, finer rows inside a floor (chain families, the x402 core), and
// `unreachable`, what a folder's imports may never reach however far they go. Every
// import counts, `import type` included (a type import is still a dependency a reader follows).
// Exits 1 and names each offending import when a row is broken.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const root = resolve(import.meta.dirname, "..");

/**
 * The floors of the house, bottom first. A unit is a folder under lib/ (`lib/ledger`), a file
 * directly under lib/ (`lib/env`), a package (`packages/contracts`), or a top-level folder or
 * file (`app`, `server`). A file may import its own unit and units on lower floors only: an
 * import across one floor, or up, fails. A new unit goes on the lowest floor above everything it
 * imports; a new import that needs a unit higher moves the importer up, never the other way.
 */
const floors = [
  // the contracts other processes share: no import of the project
  ["packages/contracts"],
  // ground: nothing but the contracts
  [
    "lib/errors",
    "lib/ids",
    "lib/crypto",
    "lib/log-redaction",
    "lib/light-abort",
    "lib/sse",
    "lib/pricing",
    "lib/metrics",
    "lib/receiving-addresses",
    "lib/collect-startup-garbage",
    "lib/verification",
    "lib/telemetry",
    "lib/plain-headers",
    "lib/settled-within",
  ],
  // settings, storage, logging, the wire formats; the agent (a separate process: contracts only, see `rules`)
  ["lib/env", "lib/db", "lib/dialects", "lib/log", "agent"],
  // the services type, money, chains, upstream dispatch, usage metering
  [
    "lib/services",
    "lib/ledger",
    "lib/chains",
    "lib/providers",
    "lib/usage",
    "lib/maintenance-lease",
    "lib/rate-limit",
    "lib/replica-signals",
    "lib/start-failure",
    "lib/pages",
    "lib/keys",
    "lib/receipts",
    "lib/response-cache",
  ],
  ["lib/http", "lib/tokens", "lib/catalog", "lib/relays", "lib/activity"],
  ["lib/payouts", "lib/operator-log"],
  ["lib/hosts", "lib/funding", "lib/responses", "lib/dashboard", "lib/docs"],
  ["lib/trust", "lib/deposits", "lib/balance-watch"],
  ["lib/marketplace", "lib/reconcile", "lib/usage-records"],
  ["lib/routing"],
  ["lib/proxy"],
  ["lib/canaries"],
  ["lib/x402"],
  // the operator console's reads and the operator's notices (hosts, payouts, money)
  ["lib/operator-console"],
  // what runs on a request or a timer: the API handlers and the upkeep passes
  ["lib/api", "lib/maintenance"],
  // the composition root builds the services; components render pages from lib/
  ["compose-app", "components", "contentlayer.config"],
  // entry points: the server, Next's route adapter, scripts
  ["server", "next-route", "scripts"],
  ["app", "bench", "bin", "next.config", "vitest.config", "drizzle.config"],
];

/** What names one chain family: its packages and its code in lib/chains. */
const chainFamilies = {
  solana: ["lib/chains/solana/", "@solana/", "@solana-program/", "@x402/svm"],
  evm: ["lib/chains/evm/", "viem", "@x402/evm"],
};
/** The features that pay or get paid on a chain: each keeps a chain-neutral core and a folder per family. */
const familyUnits = [
  {
    unit: "lib/x402/",
    core: "lib/x402/core/",
    family: (name) => `lib/x402/rails/${name}/`,
    // the rail registry names every family
    also: ["lib/x402/rails/"],
  },
  { unit: "lib/deposits/", core: "lib/deposits/core/", family: (name) => `lib/deposits/${name}/` },
  { unit: "lib/payouts/", core: "lib/payouts/core/", family: (name) => `lib/payouts/${name}/` },
  { unit: "lib/reconcile/", core: "lib/reconcile/core/", family: (name) => `lib/reconcile/${name}/` },
];
const familyNames = Object.keys(chainFamilies);
/** Everything of one family: its packages, its chain code and its folder in every feature. */
const familyCode = (name) => [...chainFamilies[name], ...familyUnits.map((feature) => feature.family(name))];

/**
 * `from`: a folder (a path prefix from the repository root). `forbid`: what its files may not
 * import, as repository path prefixes (relative imports are resolved) or package names.
 */
const rules = [
  {
    from: "agent/",
    forbid: ["lib/", "app/", "components/", "server.ts", "compose-app.ts"],
    why: "the agent is a separate process: it shares only packages/contracts with the gateway",
  },
  ...familyUnits.map((feature) => ({
    from: feature.core,
    forbid: ["lib/chains/", ...(feature.also ?? []), ...familyNames.flatMap(familyCode)],
    why: `the ${feature.unit} core is chain-neutral: a family's code lives in its folder`,
  })),
  ...familyUnits.flatMap((feature) =>
    familyNames.map((name) => ({
      from: feature.family(name),
      forbid: familyNames.filter((other) => other !== name).flatMap(familyCode),
      why: "a family's folder knows its own family only",
    })),
  ),
  {
    from: "lib/chains/",
    forbid: ["lib/x402/", "lib/deposits/", "lib/payouts/", "lib/reconcile/", "lib/api/"],
    why: "chain code is below every feature that pays or gets paid on a chain",
  },
  ...familyNames.map((name) => ({
    from: `lib/chains/${name}/`,
    forbid: familyNames.filter((other) => other !== name).flatMap((other) => chainFamilies[other]),
    why: "one chain family does not know another",
  })),
];

/**
 * Forbidden directions, however far: nothing a file under `from` imports may reach `never`,
 * through any number of imports (the floors allow a detour the row does not: proxy → routing is
 * fine, proxy → … → trust is not). The first path found is named.
 */
const unreachable = [
  {
    from: "lib/proxy/",
    never: ["lib/trust/", "lib/hosts/", "lib/payouts/"],
    why: "a paid request never waits on trust, host upkeep or payouts: its findings go to the services' `trustFindings` sink",
  },
];

function sourceFiles(folder) {
  const absolute = join(root, folder);
  let entries;
  try {
    entries = readdirSync(absolute);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(`${path}/`);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** What an import names: a repository path for a relative import, else the package specifier. */
function target(file, specifier) {
  if (specifier.startsWith("@/")) return specifier.slice(2);
  if (!specifier.startsWith(".")) return specifier;
  return `${relative(root, resolve(root, dirname(file), specifier))}`;
}

function matches(imported, prefix) {
  if (prefix.startsWith("lib/")) return `${imported}/`.startsWith(prefix) || imported.startsWith(prefix);
  return imported === prefix || imported.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`);
}

const skipped = new Set([
  "node_modules",
  ".next",
  ".git",
  ".contentlayer",
  ".data",
  ".pod",
  "tests",
  "drizzle",
  "public",
  "content",
  "stubs",
]);

function treeFiles(folder = "") {
  return readdirSync(join(root, folder)).flatMap((name) => {
    const path = folder ? `${folder}/${name}` : name;
    if (skipped.has(path) || path === "bench/out" || name === "node_modules") return [];
    if (statSync(join(root, path)).isDirectory()) return treeFiles(path);
    return /\.(tsx?|mjs)$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The unit a repository path (with or without its extension) belongs to. */
function unitOf(path) {
  const parts = path.split("/");
  if (parts[0] === "lib" || parts[0] === "packages") {
    return parts.length === 2
      ? `${parts[0]}/${parts[1].replace(/\.(tsx?|mjs)$/, "")}`
      : `${parts[0]}/${parts[1]}`;
  }
  return parts.length === 1 ? parts[0].replace(/\.(tsx?|mjs)$/, "") : parts[0];
}

/** The repository path an import names, or undefined for a package outside the tree. */
function projectTarget(file, specifier) {
  if (specifier.startsWith("@/")) return specifier.slice(2);
  if (specifier.startsWith("@pod-gateway/contracts")) return "packages/contracts/src";
  if (specifier.startsWith(".")) return relative(root, resolve(root, dirname(file), specifier));
  return undefined;
}

const floorOf = new Map(floors.flatMap((units, floor) => units.map((unit) => [unit, floor])));
const broken = [];
for (const file of treeFiles()) {
  const unit = unitOf(file);
  const floor = floorOf.get(unit);
  if (floor === undefined) {
    broken.push(
      `${file}: its unit ${unit} is on no floor (add it to \`floors\` above everything it imports)`,
    );
    continue;
  }
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
  for (const { fileName } of importedFiles) {
    const imported = projectTarget(file, fileName);
    if (imported === undefined) continue;
    const importedUnit = unitOf(imported);
    if (importedUnit === unit) continue;
    const importedFloor = floorOf.get(importedUnit);
    if (importedFloor === undefined || importedFloor >= floor)
      broken.push(
        `${file} imports ${fileName}: ${unit} (floor ${floor + 1}) may import only lower floors, ${importedUnit} is on ${importedFloor === undefined ? "no floor" : `floor ${importedFloor + 1}`}`,
      );
  }
}

for (const rule of rules) {
  for (const file of sourceFiles(rule.from)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      const imported = target(file, fileName);
      const hit = rule.forbid.find((prefix) => matches(imported, prefix));
      if (hit) broken.push(`${file} imports ${fileName} (${hit}): ${rule.why}`);
    }
  }
}

/** The source file an import names (extension or index added), or undefined outside the tree. */
function sourceOf(path) {
  for (const candidate of [path, `${path}.ts`, `${path}.tsx`, `${path}/index.ts`]) {
    const absolute = join(root, candidate);
    if (existsSync(absolute) && statSync(absolute).isFile()) return candidate;
  }
  return undefined;
}

const importsOf = new Map();
function projectImports(file) {
  let found = importsOf.get(file);
  if (!found) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
    found = importedFiles.flatMap(({ fileName }) => {
      const imported = projectTarget(file, fileName);
      const source = imported === undefined ? undefined : sourceOf(imported);
      return source === undefined ? [] : [source];
    });
    importsOf.set(file, found);
  }
  return found;
}

for (const row of unreachable) {
  const starts = sourceFiles(row.from).filter((file) => !/\.test\.tsx?$/.test(file));
  const cameFrom = new Map(starts.map((file) => [file, undefined]));
  const queue = [...starts];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const imported of projectImports(file)) {
      if (cameFrom.has(imported)) continue;
      cameFrom.set(imported, file);
      if (row.never.some((prefix) => imported.startsWith(prefix))) {
        const path = [imported];
        for (let step = file; step !== undefined; step = cameFrom.get(step)) path.unshift(step);
        broken.push(`${path.join(" → ")}: ${row.why}`);
      } else queue.push(imported);
    }
  }
}

if (broken.length > 0) {
  console.error(`layer rule broken (scripts/check-layers.mjs):\n  ${broken.join("\n  ")}`);
  process.exit(1);
}
console.log(
  `layer rule holds (${floors.length} floors, ${rules.length} rules, ${unreachable.length} unreachable)`,
);
