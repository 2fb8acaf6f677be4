#!/usr/bin/env node
// The layer rule, checked: which folders may not import which. One table; a new rule is a row.
// Every import counts, `import type` included (a type import is still a dependency a reader
// follows). Exits 1 and names each offending import when a row is broken.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const root = resolve(import.meta.dirname, "..");

/**
 * `from`: a folder (a path prefix from the repository root). `forbid`: what its files may not
 * import, as repository path prefixes (relative imports are resolved) or package names.
 */
const rules = [
  {
    from: "lib/x402/core/",
    forbid: [
      "lib/x402/rails/",
      "lib/chains/",
      "@solana/",
      "@solana-program/",
      "viem",
      "@x402/evm",
      "@x402/svm",
    ],
    why: "the x402 core is chain-neutral: a family's code lives in its rail",
  },
  {
    from: "lib/x402/rails/solana/",
    forbid: ["lib/x402/rails/evm/", "lib/chains/evm/", "viem", "@x402/evm"],
    why: "a rail knows its own family only",
  },
  {
    from: "lib/x402/rails/evm/",
    forbid: ["lib/x402/rails/solana/", "lib/chains/solana/", "@solana/", "@solana-program/", "@x402/svm"],
    why: "a rail knows its own family only",
  },
  {
    from: "lib/chains/",
    forbid: ["lib/x402/", "lib/deposits/", "lib/payouts/", "lib/api/"],
    why: "chain code is below every feature that pays or gets paid on a chain",
  },
  {
    from: "lib/chains/solana/",
    forbid: ["lib/chains/evm/", "viem", "@x402/evm"],
    why: "one chain family does not know another",
  },
  {
    from: "lib/chains/evm/",
    forbid: ["lib/chains/solana/", "@solana/", "@solana-program/", "@x402/svm"],
    why: "one chain family does not know another",
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
  if (!specifier.startsWith(".")) return specifier;
  return `${relative(root, resolve(root, dirname(file), specifier))}`;
}

function matches(imported, prefix) {
  if (prefix.startsWith("lib/")) return `${imported}/`.startsWith(prefix) || imported.startsWith(prefix);
  return imported === prefix || imported.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`);
}

const broken = [];
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

if (broken.length > 0) {
  console.error(`layer rule broken (scripts/check-layers.mjs):\n  ${broken.join("\n  ")}`);
  process.exit(1);
}
console.log(`layer rule holds (${rules.length} rules)`);
