// Adds lock entries for other platforms' optional binaries (biome, next/swc, litesvm, anvil, ...)
// that this machine's registry mirror does not serve. npm records only what it could resolve, and
// `npm ci` then rejects the lock as out of sync. The added entries carry os/cpu/libc, so npm skips
// them on every platform they are not for and never fetches them here.
import { readFileSync, writeFileSync } from "node:fs";

const lockPath = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;

const osNames = [
  "darwin",
  "linux",
  "win32",
  "android",
  "freebsd",
  "openbsd",
  "netbsd",
  "sunos",
  "aix",
  "openharmony",
];
const cpuNames = {
  arm64: "arm64",
  aarch64: "arm64",
  x64: "x64",
  amd64: "x64",
  ia32: "ia32",
  arm: "arm",
  riscv64: "riscv64",
  ppc64: "ppc64",
  s390x: "s390x",
  loong64: "loong64",
  mips64el: "mips64el",
};

function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os =
    parts.find((part) => osNames.includes(part)) ??
    (parts.includes("windows") || parts.includes("win")
      ? "win32"
      : parts.includes("macos") || parts.includes("mac")
        ? "darwin"
        : undefined);
  const cpuPart = parts.find((part) => part in cpuNames);
  if (!os || !cpuPart) return undefined;
  const platform = { os: [os], cpu: [cpuNames[cpuPart]] };
  if (parts.includes("musl")) platform.libc = ["musl"];
  else if (os === "linux" && (parts.includes("gnu") || parts.includes("glibc"))) platform.libc = ["glibc"];
  return platform;
}

// Native builds nothing here runs, marked for no platform so npm skips them everywhere:
// - node-llama-cpp's GPU builds (CUDA, Vulkan: about 610 MB) would install on every Linux and
//   Windows x64 machine. The agent's GGUF backend runs on the CPU build; an operator with a GPU
//   installs one next to the agent (`npm install @node-llama-cpp/linux-x64-cuda`).
// - sharp's builds (libvips, about 20 MB), Next's image optimizer: the app serves no next/image
//   and next.config.ts sets `images.unoptimized`, so Next never loads it.
const optInOnly =
  /^node_modules\/(@node-llama-cpp\/[a-z0-9]+-[a-z0-9]+-(cuda|cuda-ext|vulkan)|@img\/sharp-[a-z0-9-]+)$/;

const check = process.argv.includes("--check");
let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = path === "" ? undefined : `${path}/node_modules/${dep}`;
    if (packages[`node_modules/${dep}`] || (nested && packages[nested])) continue;
    const platform = platformOf(dep);
    const version = range.replace(/^[\^~=]/, "");
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    packages[`node_modules/${dep}`] = { version, optional: true, ...platform };
    added += 1;
  }
}
let skipped = 0;
for (const [path, entry] of Object.entries(packages)) {
  if (!optInOnly.test(path) || entry.os?.[0] === "none") continue;
  entry.os = ["none"];
  skipped += 1;
}
if (check) {
  if (skipped > 0) {
    console.error(
      `package-lock.json would install ${skipped} opt-in native builds: run \`node scripts/complete-lockfile.mjs\``,
    );
    process.exit(1);
  }
  if (added > 0) {
    console.error(
      `package-lock.json lacks ${added} platform entries: run \`node scripts/complete-lockfile.mjs\``,
    );
    process.exit(1);
  }
} else {
  if (added > 0 || skipped > 0) writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(
    `complete-lockfile: added ${added} platform entr${added === 1 ? "y" : "ies"}, marked ${skipped} native build${skipped === 1 ? "" : "s"} opt-in`,
  );
}
