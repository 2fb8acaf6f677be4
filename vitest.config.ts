import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": import.meta.dirname } },
  test: {
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
