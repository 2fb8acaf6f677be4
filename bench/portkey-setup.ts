// Portkey's open-source gateway 1.15.2 from npm, patched at bench setup. On Node 20 it fails every
// streamed request with "TypeError: immutable": ResponseService.updateHeaders appends headers to a
// Response whose headers are immutable (Portkey-AI/gateway issues #1389 and #1550). The fix proposed
// there (pull requests #1390 and #1551) gives updateHeaders a fresh Response with the same status, body
// and headers when they cannot be changed, and uses what it returns. The bench writes that patched copy
// next to the original and runs it; it says so when the build no longer matches.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const replacements: [string, string][] = [
  [
    "updateHeaders(e,t,a){return e.headers.append(",
    'updateHeaders(e,t,a){try{e.headers.append("x-bench-probe","1"),e.headers.delete("x-bench-probe")}catch{e=new Response(e.body,{status:e.status,statusText:e.statusText,headers:e.headers})}return e.headers.append(',
  ],
  [
    "this.updateHeaders(i,n.cacheStatus,o),{response:i",
    "i=this.updateHeaders(i,n.cacheStatus,o),{response:i",
  ],
];

export interface PortkeyEntry {
  script: string;
  version: string;
  /** False when the build did not match the patch: streams are then measured as they fail. */
  patched: boolean;
}

export function portkeyEntry(): PortkeyEntry | undefined {
  const require = createRequire(import.meta.url);
  let packageJson: string;
  try {
    packageJson = require.resolve("@portkey-ai/gateway/package.json");
  } catch {
    return undefined;
  }
  const version = (JSON.parse(readFileSync(packageJson, "utf8")) as { version: string }).version;
  const original = join(dirname(packageJson), "build", "start-server.js");
  if (!existsSync(original)) return undefined;
  let source = readFileSync(original, "utf8");
  for (const [from, to] of replacements) {
    if (source.split(from).length !== 2) return { script: original, version, patched: false };
    source = source.replace(from, to);
  }
  const script = join(dirname(packageJson), "build", "start-server.bench-patched.js");
  writeFileSync(script, source);
  return { script, version, patched: true };
}
