import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Native and server-only packages stay out of the bundle.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "litesvm"],
};

export default nextConfig;
