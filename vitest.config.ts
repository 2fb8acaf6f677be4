import path from "node:path";
import { defineConfig } from "vitest/config";

/** Set by `.ci/run`: each vitest process also writes a JSON report there (its slowest files are printed). */
const timingsDir = process.env.TEST_TIMINGS_DIR;

export default defineConfig({
  resolve: { alias: { "@": import.meta.dirname } },
  test: {
    // expect.poll waits for work the gateway does after it answers (canaries, trust findings,
    // settlements): its 1 s default failed such waits on a loaded 2-core machine (a fresh-clone
    // run failed verification-spend.test this way), so every file waits up to 20 s.
    expect: { poll: { timeout: 20_000 } },
    ...(timingsDir
      ? {
          reporters: ["default", "json"],
          outputFile: { json: path.join(timingsDir, `vitest-${process.pid}.json`) },
        }
      : {}),
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["lib/**/*.test.ts", "components/**/*.test.ts"], environment: "node" },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["tests/**/*.test.ts"],
          globalSetup: ["tests/helpers/pglite-template-setup.ts"],
          exclude: ["tests/e2e/dashboard*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        // The dashboard's browser tests run after the rest, on their own: in parallel with the
        // other suites' servers and browsers they time out on this 2-core machine.
        // One file at a time for the same reason.
        extends: true,
        test: {
          name: "pages",
          include: ["tests/e2e/dashboard*.test.ts"],
          globalSetup: ["tests/helpers/pglite-template-setup.ts"],
          environment: "node",
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
