import { createServer, type Server, type ServerResponse } from "node:http";
import { type AppContext, createAppContext, setAppContext } from "./compose-app";
import { isApiPath, serveApiRequest } from "./lib/api/pipeline";
import { collectStartupGarbage } from "./lib/collect-startup-garbage";
import { renderErrorBody } from "./lib/dialects/render-error";
import { loadEnv } from "./lib/env";
import type { GatewayError } from "./lib/errors/gateway-error";
import { sendWebResponse, toApiRequest } from "./lib/http/node-adapter";
import { checkRequestTarget } from "./lib/http/request-target";
import { newId } from "./lib/ids";
import { log, redactPath } from "./lib/log";
import { attachProviderSocket } from "./lib/marketplace/provider-socket";
import { type PageHandler, PageHost } from "./lib/pages/page-host";
import { isNextMissing, loadStandaloneNext } from "./lib/pages/standalone-next";
import { startOrExit } from "./lib/start-failure";

export interface GatewayServer {
  server: Server;
  app: AppContext;
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  app?: AppContext;
  port?: number;
  host?: string;
  /**
   * Serve pages through Next as well, from an existing build (tests build first); off in
   * API-only tests and benchmarks. `pages` takes precedence.
   */
  withNext?: boolean;
  /** Where pages come from (npm start: built in the background, Next loaded on the first page request). */
  pages?: PageHost;
}

/**
 * Next's server, loaded only when the first page is asked for: importing and preparing it
 * costs about 100 MiB that a process serving only the API never needs.
 */
async function loadNext(): Promise<PageHandler> {
  const nextApp = await createNext();
  await nextApp.prepare();
  const handle = nextApp.getRequestHandler();
  return (request, response) => handle(request, response);
}

/** Next from the install, or from the build's standalone output when the install has none. */
async function createNext() {
  try {
    const { default: next } = await import("next");
    return next({ dev: false, dir: import.meta.dirname });
  } catch (error) {
    const standalone = isNextMissing(error) ? loadStandaloneNext(import.meta.dirname) : undefined;
    if (!standalone) throw error;
    log.info("pages served by the build's standalone output (Next is not installed)");
    return standalone.next({ dev: false, dir: standalone.dir });
  }
}

/** The pages as `npm start` serves them; POD_PAGES=off leaves them out (API-only replicas). */
export function startPageHost(build: boolean): PageHost {
  const host = new PageHost({
    root: import.meta.dirname,
    load: loadNext,
    ...(build ? { build: { command: "npm", args: ["run", "build"] } } : {}),
  });
  host.start();
  return host;
}

/** A request refused from its request line alone; the connection is closed after it. */
function refuseTarget(outgoing: ServerResponse, error: GatewayError): void {
  const requestId = newId("req");
  const body = JSON.stringify(renderErrorBody("openai", error, requestId));
  outgoing.writeHead(error.status, {
    "content-length": String(Buffer.byteLength(body)),
    "content-type": "application/json",
    "x-request-id": requestId,
    "access-control-allow-origin": "*",
    connection: "close",
    ...(error.status === 405 ? { allow: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS" } : {}),
  });
  outgoing.end(body);
}

/**
 * A client that declares a body and never sends it gets a 408 after `requestMs` instead of
 * holding a connection for Node's default 5 minutes; the check runs often enough to keep
 * the bound close.
 */
function requestTimeouts(requestMs: number) {
  return {
    requestTimeout: requestMs,
    headersTimeout: Math.min(requestMs, 60_000),
    connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(requestMs / 4))),
  };
}

/**
 * One node:http server: the request line is checked first (canonical origin-form path,
 * known method), then API paths go straight to the request pipeline; every other path is
 * handed to Next. A Next route handler costs about 1 ms of CPU a request, which
 * the API hot path cannot afford.
 */
export async function startGatewayServer(options: StartOptions = {}): Promise<GatewayServer> {
  const app = options.app ?? (await createAppContext());
  setAppContext(app);
  const pages = options.pages ?? (options.withNext ? startPageHost(false) : undefined);
  const port = options.port ?? app.env.PORT;
  const host = options.host ?? app.env.HOST;
  let origin = `http://${host}:${port}`;

  const timeouts = requestTimeouts(app.env.REQUEST_TIMEOUT_MS);
  const server = createServer(timeouts, (incoming, outgoing) => {
    const target = checkRequestTarget(incoming.method, incoming.url);
    if (!target.ok) {
      refuseTarget(outgoing, target.error);
      return;
    }
    const { pathname } = target;
    if (isApiPath(pathname) || !pages) {
      toApiRequest(incoming, outgoing, origin, {
        trustProxy: app.env.TRUST_PROXY,
        bufferLimit: app.env.MAX_BODY_BYTES,
        pathname,
      })
        .then((request) => serveApiRequest(app, request))
        .then((response) => sendWebResponse(response, outgoing))
        .catch((error: unknown) => {
          log.error("request failed", { path: redactPath(pathname), error });
          if (!outgoing.headersSent) outgoing.writeHead(500, { "content-type": "application/json" });
          outgoing.end(JSON.stringify({ error: { message: "internal error", type: "internal_error" } }));
        });
      return;
    }
    pages.handle(incoming, outgoing).catch((error: unknown) => {
      log.error("page request failed", { path: pathname, error });
      if (!outgoing.headersSent) outgoing.writeHead(500);
      outgoing.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  const detachProviderSocket = attachProviderSocket(server, app);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  if (address && typeof address === "object") origin = `http://${host}:${address.port}`;
  return {
    server,
    app,
    url: origin,
    async close() {
      pages?.close();
      detachProviderSocket();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}

/** `npm start`: env, pages, database, then the server; exits with a one-line reason when one fails. */
export async function main(): Promise<void> {
  const env = await startOrExit(async () => loadEnv());
  // The page build is the long pole of a first start: it begins before the database opens,
  // and a gateway that exits takes its unfinished build with it.
  const pages = env.POD_PAGES === "on" ? startPageHost(true) : undefined;
  process.once("exit", () => pages?.close());
  const app = await startOrExit(() => createAppContext({ env }));
  const gateway = await startOrExit(() => startGatewayServer({ app, ...(pages ? { pages } : {}) }));
  if (app.env.POD_SIMULATOR)
    log.warn("POD_SIMULATOR is on: replies from provider 'simulator' are simulated, not real inference");
  // The API is up: what start-up allocated and dropped is collected now, not when load comes.
  collectStartupGarbage();
  log.info("pod gateway listening", {
    url: gateway.url,
    database: app.database.kind,
    upstreams: [...app.upstreams.keys()],
    pages: pages?.status ?? "off",
  });
  const shutdown = () => {
    gateway.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

// `tsx server.ts` (dev, tests); `npm start` runs the precompiled copy through scripts/start.mjs.
if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) await main();
