import { loadEnv } from "../env";
import type { ApiRequest } from "../http/api-request";
import { renderLlmsFull } from "./llms-full";
import { renderLlmsTxt } from "./llms-txt";
import { renderPageMarkdown } from "./page-markdown";
import { buildPagesManifest, renderPagesManifest } from "./pages-manifest";
import { renderDocsIndexMarkdown, renderSectionMarkdown } from "./section-markdown";
import type { DocPage } from "./source";
import { getDocCorpus } from "./source";
import { normalizeBaseUrl } from "./urls";

/**
 * Web-standard handlers of the machine-readable docs endpoints. Route files only forward to
 * them, so vitest calls them directly and any server can mount them.
 */

const docsCacheControl = "public, max-age=3600";

const docsContentTypes = {
  text: "text/plain; charset=utf-8",
  json: "application/json; charset=utf-8",
  markdown: "text/markdown; charset=utf-8",
} as const;

export interface DocsHandlerOptions {
  /** The corpus; defaults to `content/docs` read once per process. */
  corpus?: () => { pages: readonly DocPage[]; loadedAt: Date };
  /** Base URL settings; default to the environment (`DOCS_URL`, `PUBLIC_BASE_URL`, `TRUST_PROXY`). */
  baseUrl?: BaseUrlConfig;
}

export interface DocsHandlers {
  llmsTxt(request: ApiRequest): Promise<Response>;
  llmsFull(request: ApiRequest): Promise<Response>;
  pagesJson(request: ApiRequest): Promise<Response>;
  /** `slug` is `<section>/<page>`, `<section>` or "" (the docs index), without `.md`. */
  pageMarkdown(request: ApiRequest, slug: string): Promise<Response>;
}

export interface BaseUrlConfig {
  configured: string | undefined;
  trustProxy: boolean;
}

let environmentConfig: BaseUrlConfig | undefined;

/** Read once: the environment does not change while the process runs. */
function baseUrlConfig(): BaseUrlConfig {
  if (environmentConfig === undefined) {
    const env = loadEnv();
    environmentConfig = { configured: env.DOCS_URL ?? env.PUBLIC_BASE_URL, trustProxy: env.TRUST_PROXY };
  }
  return environmentConfig;
}

const hostPattern =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

function firstHeaderValue(request: ApiRequest, name: string): string | undefined {
  const value = request.headers.get(name)?.split(",")[0]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/**
 * The docs base address: `DOCS_URL`, else `PUBLIC_BASE_URL`, else the origin the client used.
 * Next rewrites `request.url` to its own listening host, so the client's origin comes from the
 * Host header (or X-Forwarded-Host behind a trusted proxy). Configure an address in production:
 * these responses are publicly cached for an hour, and a configured origin cannot be steered by
 * request headers.
 */
export function resolveDocsBaseUrl(request: ApiRequest, config: BaseUrlConfig): string {
  if (config.configured !== undefined) return normalizeBaseUrl(config.configured);
  const url = new URL(request.url);
  const forwardedHost = config.trustProxy ? firstHeaderValue(request, "x-forwarded-host") : undefined;
  const forwardedProto = config.trustProxy ? firstHeaderValue(request, "x-forwarded-proto") : undefined;
  const host = forwardedHost ?? firstHeaderValue(request, "host") ?? url.host;
  const protocol =
    forwardedProto === "https" || forwardedProto === "http" ? `${forwardedProto}:` : url.protocol;
  return hostPattern.test(host) ? `${protocol}//${host}` : url.origin;
}

function textResponse(
  body: string,
  contentType: string,
  extraHeaders: Record<string, string> = {},
): Response {
  return new Response(body, {
    status: 200,
    headers: {
      "Content-Type": contentType,
      "Cache-Control": docsCacheControl,
      // Public documentation: let browser-based agents read it cross-origin.
      "Access-Control-Allow-Origin": "*",
      ...extraHeaders,
    },
  });
}

export function createDocsHandlers(options: DocsHandlerOptions = {}): DocsHandlers {
  const corpus = options.corpus ?? getDocCorpus;
  const base = (request: ApiRequest) => resolveDocsBaseUrl(request, options.baseUrl ?? baseUrlConfig());
  return {
    async llmsTxt(request) {
      return textResponse(renderLlmsTxt(corpus().pages, base(request)), docsContentTypes.text);
    },
    async llmsFull(request) {
      return textResponse(renderLlmsFull(corpus().pages, base(request)), docsContentTypes.text);
    },
    async pagesJson(request) {
      const { pages, loadedAt } = corpus();
      return textResponse(
        renderPagesManifest(buildPagesManifest(pages, base(request), loadedAt)),
        docsContentTypes.json,
      );
    },
    async pageMarkdown(request, slug) {
      const { pages } = corpus();
      const markdown = (() => {
        if (slug === "") return renderDocsIndexMarkdown(pages, base(request));
        if (!slug.includes("/")) return renderSectionMarkdown(pages, slug, base(request));
        const page = pages.find((candidate) => candidate.slug === slug);
        return page === undefined ? undefined : renderPageMarkdown(page, base(request));
      })();
      if (markdown === undefined) {
        return new Response(`No docs page at /docs/${slug}. The index is at /llms.txt.\n`, {
          status: 404,
          headers: { "Content-Type": docsContentTypes.text, "Cache-Control": "no-store" },
        });
      }
      return textResponse(markdown, docsContentTypes.markdown, {
        "X-Robots-Tag": "index, follow",
      });
    },
  };
}

/** The handlers the routes mount. */
export const docsHandlers: DocsHandlers = createDocsHandlers();
