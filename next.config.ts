import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // A server pruned to its production install (no Next) serves the pages from .next/standalone.
  output: "standalone",
  // No next/image here: sharp's native builds are left out of the install (scripts/complete-lockfile.mjs).
  images: { unoptimized: true },
  // Native and server-only packages stay out of the bundle.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "litesvm", "sodium-native"],
  // sodium-native loads its prebuilt addon by a path the output tracer cannot follow: the
  // build's own platform's copy goes into .next/standalone by name.
  outputFileTracingIncludes: {
    "/**": [`./node_modules/sodium-native/prebuilds/${process.platform}-${process.arch}/**`],
  },
  async rewrites() {
    return {
      // Checked before the dynamic /docs/[section]/[page] route would take "page.md" as a page name.
      beforeFiles: [
        // Browsers ask for /favicon.ico whatever the page declares; answer with the SVG icon.
        { source: "/favicon.ico", destination: "/favicon.svg" },
        { source: "/docs.md", destination: "/docs-md" },
        { source: "/docs/:slug(.+)\\.md", destination: "/docs-md/:slug" },
      ],
      afterFiles: [],
      fallback: [],
    };
  },
};

export default nextConfig;
