import type { Metadata } from "next";
import { docsSite } from "@/lib/docs/site";
import { machinePaths, markdownPath } from "@/lib/docs/urls";
import { loadEnv } from "@/lib/env";

/**
 * Shared <head> data. Every HTML page advertises the machine-readable files with
 * `<link rel="alternate">`; a docs page also points to its own `.md`. Next replaces a parent's
 * `alternates` instead of merging it, so each page builds the full set here.
 */
export function docsAlternates(slug?: string, title?: string): NonNullable<Metadata["alternates"]> {
  return {
    ...(slug === undefined ? {} : { canonical: `/docs/${slug}` }),
    types: {
      "text/plain": [
        { url: machinePaths.llmsIndex, title: "llms.txt" },
        { url: machinePaths.llmsFull, title: "llms-full.txt" },
      ],
      "application/json": [{ url: machinePaths.pagesManifest, title: "Docs manifest" }],
      ...(slug === undefined ? {} : { "text/markdown": [{ url: markdownPath(slug), title: title ?? slug }] }),
    },
  };
}

/** The configured public origin, if any: absolute canonical and Open Graph URLs need one. */
export function siteOrigin(): URL | undefined {
  const env = loadEnv();
  const configured = env.DOCS_URL ?? env.PUBLIC_BASE_URL;
  return configured === undefined ? undefined : new URL(configured);
}

export function websiteJsonLd(): string {
  const origin = siteOrigin()?.origin;
  const data = {
    "@context": "https://schema.org",
    "@type": "WebSite",
    name: docsSite.docsName,
    ...(origin === undefined ? {} : { url: origin }),
    description: docsSite.summary,
    publisher: { "@type": "Organization", name: docsSite.name },
  };
  // `<` is escaped so the JSON can never close the <script> element it sits in.
  return JSON.stringify(data).replace(/</g, "\\u003c");
}
