// A stand-in for `npm run build` in a scratch root (tests/integration/pages): it waits until the
// test creates `release` (so the test decides when the build ends), then leaves what a real
// build leaves, `.next/BUILD_ID` and the inputs stamp, or exits 1 when `fail` exists.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { writeBuildStamp } from "../../lib/pages/build-stamp";

const root = process.cwd();
writeFileSync(path.join(root, "build-started"), String(process.pid));
while (!existsSync(path.join(root, "release"))) await new Promise((resolve) => setTimeout(resolve, 50));
if (existsSync(path.join(root, "fail"))) {
  process.stderr.write("Type error: the fake build was told to fail\n");
  process.exit(1);
}
mkdirSync(path.join(root, ".next"), { recursive: true });
writeFileSync(path.join(root, ".next", "BUILD_ID"), "fake-build\n");
writeBuildStamp(root);
