// `npm start`: compiles server.ts (and the PGlite worker entry) with esbuild into .pod/server,
// then runs the compiled copy in this process. Running it through tsx instead costs a loader
// thread and transpiler caches, about 80 MiB of resident memory the gateway never needs.
// Packages load from node_modules as they are; only the project's own code is bundled.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build, stop } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const outdir = join(root, ".pod", "server");
const workerOut = join(outdir, "pglite-thread-worker.mjs");
const inputsFile = join(outdir, "inputs.json");

/**
 * The sources read `import.meta.dirname` and `import.meta.filename` relative to where they live
 * (the repo root, drizzle/, content/); in one bundle those would all name .pod/server, so each
 * file keeps its own paths as literals.
 */
const keepSourcePaths = {
  name: "keep-source-paths",
  setup(context) {
    context.onLoad({ filter: /\.tsx?$/ }, async (args) => {
      if (args.path.includes("node_modules")) return undefined;
      const source = await readFile(args.path, "utf8");
      if (!source.includes("import.meta.")) return undefined;
      return {
        contents: source
          .replaceAll("import.meta.dirname", JSON.stringify(dirname(args.path)))
          .replaceAll("import.meta.filename", JSON.stringify(args.path)),
        loader: args.path.endsWith(".tsx") ? "tsx" : "ts",
      };
    });
  },
};

/** Packages stay external; the workspace's own packages (TypeScript sources) and `@/` paths are bundled. */
const externalPackages = {
  name: "external-packages",
  setup(context) {
    context.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("@/") || args.path.startsWith("@pod-gateway/")) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** The compiled copy is current when it is newer than every source it was compiled from. */
function isCurrent() {
  try {
    const { compiledAt, inputs } = JSON.parse(readFileSync(inputsFile, "utf8"));
    return inputs.every((input) => statSync(join(root, input)).mtimeMs < compiledAt);
  } catch {
    return false;
  }
}

async function compile() {
  const compiledAt = Date.now();
  const result = await build({
    absWorkingDir: root,
    entryPoints: { server: "server.ts", "pglite-thread-worker": "lib/db/pglite-thread-worker.ts" },
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    logLevel: "error",
    write: false,
    metafile: true,
    define: { POD_COMPILED_PGLITE_WORKER: JSON.stringify(workerOut) },
    plugins: [externalPackages, keepSourcePaths],
  });
  mkdirSync(outdir, { recursive: true });
  // Replicas and tests may start together from one checkout: each file appears whole or not at all.
  for (const file of [...result.outputFiles, { path: inputsFile, contents: inputsOf(result, compiledAt) }]) {
    const partial = `${file.path}.${process.pid}.tmp`;
    writeFileSync(partial, file.contents);
    renameSync(partial, file.path);
  }
}

function inputsOf(result, compiledAt) {
  const inputs = Object.keys(result.metafile.inputs).filter((input) => !input.includes("node_modules"));
  return new TextEncoder().encode(JSON.stringify({ compiledAt, inputs }));
}

if (!isCurrent()) {
  await compile();
  // esbuild's service process (about 60 MiB) would otherwise live as long as the gateway.
  await stop();
}
const { main } = await import(pathToFileURL(join(outdir, "server.mjs")).href);
await main();
