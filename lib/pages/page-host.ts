import { type ChildProcess, spawn } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setPriority } from "node:os";
import { log } from "../log";
import { buildState } from "./build-stamp";
import { sendPagesUnavailable } from "./pages-unavailable";

/** Serves one page request (Next's request handler, or a test double). */
export type PageHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

interface PageHostOptions {
  /** The repository root: where `.next` and the build inputs are. */
  root: string;
  /**
   * Loads the page server, once, on the first page request: Next's server costs about
   * 100 MiB of the process, which an API-only workload never needs.
   */
  load: () => Promise<PageHandler>;
  /**
   * The build to run in the background when `.next` is missing or stale (`npm start`); without
   * it a missing build is answered as such (tests build first, replicas may not build at all).
   */
  build?: { command: string; args: string[] };
}

type PageState =
  | { kind: "ready" }
  | { kind: "building"; child: ChildProcess; since: number; stale: boolean }
  | { kind: "failed"; reason: string }
  | { kind: "unbuilt" };

/** Build output kept for the failure log line: the end is where the error is. */
const outputTailBytes = 8_000;

/**
 * The pages (docs, dashboard) beside the API: the API answers from the first second, the pages
 * once their build is ready. Until then a page request gets a clear 503 ("building", HTML for a
 * browser, JSON otherwise) instead of waiting on a build that can take minutes.
 */
export class PageHost {
  private state: PageState = { kind: "unbuilt" };
  private handler: Promise<PageHandler> | undefined;

  constructor(private readonly options: PageHostOptions) {}

  /** Checks the build (tens of milliseconds of hashing) and starts one if it is missing or stale. */
  start(): void {
    const state = buildState(this.options.root);
    if (state === "fresh") this.state = { kind: "ready" };
    else if (this.options.build) this.startBuild(this.options.build, state === "stale");
    else this.state = { kind: "unbuilt" };
  }

  get status(): PageState["kind"] {
    return this.state.kind;
  }

  handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const state = this.state;
    if (state.kind !== "ready") {
      sendPagesUnavailable(request, response, describe(state));
      return Promise.resolve();
    }
    this.handler ??= this.options.load().catch((error: unknown) => {
      this.handler = undefined;
      throw error;
    });
    return this.handler.then((handle) => handle(request, response));
  }

  /** Stops a build still running (its process group: npm, contentlayer, next). */
  close(): void {
    if (this.state.kind !== "building") return;
    const pid = this.state.child.pid;
    if (pid !== undefined) {
      try {
        process.kill(-pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    this.state = { kind: "unbuilt" };
  }

  private startBuild(build: { command: string; args: string[] }, stale: boolean): void {
    const child = spawn(build.command, build.args, {
      cwd: this.options.root,
      // Its own process group, so close() stops npm and the builders it started.
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    const since = Date.now();
    this.state = { kind: "building", child, since, stale };
    if (child.pid !== undefined) {
      try {
        // The build competes with requests for the same cores: requests come first.
        setPriority(child.pid, 10);
      } catch {
        // not permitted here: the build runs at normal priority
      }
    }
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-outputTailBytes);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    log.info(
      stale
        ? "the page build is stale: rebuilding it in the background"
        : "building the pages in the background",
      {
        note: "the API is up; pages answer 503 until the build is ready",
      },
    );
    child.once("error", (error) => this.finishBuild(child, since, undefined, error.message));
    child.once("exit", (code, signal) => this.finishBuild(child, since, code ?? signal ?? undefined, output));
  }

  private finishBuild(child: ChildProcess, since: number, code: number | string | undefined, output: string) {
    if (this.state.kind !== "building" || this.state.child !== child) return;
    const seconds = Math.round((Date.now() - since) / 1000);
    if (code === 0 && buildState(this.options.root) !== "missing") {
      this.state = { kind: "ready" };
      log.info("pages built", { seconds });
      return;
    }
    this.state = { kind: "failed", reason: `the page build failed (exit ${String(code)})` };
    log.error("page build failed: the API still serves; run `npm run build` to see the whole output", {
      seconds,
      exit: code,
      output: output.slice(-2_000),
    });
  }
}

function describe(state: Exclude<PageState, { kind: "ready" }>) {
  switch (state.kind) {
    case "building":
      return {
        kind: "building" as const,
        seconds: Math.round((Date.now() - state.since) / 1000),
        stale: state.stale,
      };
    case "failed":
      return { kind: "failed" as const, reason: state.reason };
    case "unbuilt":
      return { kind: "unbuilt" as const };
  }
}
