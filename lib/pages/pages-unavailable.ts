import type { IncomingMessage, ServerResponse } from "node:http";

type PagesUnavailable =
  | { kind: "building"; seconds: number; stale: boolean }
  | { kind: "failed"; reason: string }
  | { kind: "unbuilt" };

/** How long a client should wait before asking again while the pages build. */
const retryAfterSeconds = 10;

function message(state: PagesUnavailable): string {
  switch (state.kind) {
    case "building":
      return `The pages (docs, dashboard) are being ${state.stale ? "rebuilt" : "built"} (for ${state.seconds} s so far; a first build takes a few minutes). The API is already up: /health, /v1 and /proxy answer now.`;
    case "failed":
      return `The pages (docs, dashboard) are not available: ${state.reason}. The API is up; the server log has the build's last lines, and \`npm run build\` shows all of them.`;
    case "unbuilt":
      return "The pages (docs, dashboard) are not built: run `npm run build`, or `npm start`, which builds them in the background. The API is up.";
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function html(state: PagesUnavailable): string {
  const title = state.kind === "building" ? "Building the pages" : "Pages not available";
  // A browser on this page reloads itself while the build runs, and lands on the page once it is ready.
  const refresh =
    state.kind === "building" ? `<meta http-equiv="refresh" content="${retryAfterSeconds}">` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>Pod Gateway: ${title}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:2rem 1rem;color:#1a1a1a;background:#fafafa}main{max-width:36rem;margin:0 auto}h1{font-size:1.4rem}code{background:#eee;padding:0 .2em;border-radius:3px}</style>
</head><body><main><h1>${title}</h1><p>${escapeHtml(message(state)).replace(/`([^`]+)`/g, "<code>$1</code>")}</p>${
    state.kind === "building" ? `<p>This page reloads itself every ${retryAfterSeconds} seconds.</p>` : ""
  }</main></body></html>
`;
}

/**
 * The answer to a page request while the pages cannot be served: 503 with Retry-After, as a
 * page for a browser (it asks for text/html) and as a JSON error for API clients and scripts.
 */
export function sendPagesUnavailable(
  request: IncomingMessage,
  response: ServerResponse,
  state: PagesUnavailable,
): void {
  const wantsHtml = (request.headers.accept ?? "").includes("text/html");
  const body = wantsHtml
    ? html(state)
    : JSON.stringify({
        error: {
          type: state.kind === "building" ? "pages_building" : "pages_unavailable",
          message: message(state).replace(/`/g, ""),
        },
      });
  response.writeHead(503, {
    "content-type": wantsHtml ? "text/html; charset=utf-8" : "application/json",
    "content-length": String(Buffer.byteLength(body)),
    "cache-control": "no-store",
    ...(state.kind === "building" ? { "retry-after": String(retryAfterSeconds) } : {}),
  });
  response.end(request.method === "HEAD" ? undefined : body);
}
