import { type AgentMessage, parseGatewayFrame } from "@pod-gateway/contracts/agent-protocol";
import WebSocket from "ws";
import { type AgentIdentity, signNonce, signText } from "./identity";
import { type JobReport, RunningJob } from "./jobs";
import type { AgentMetrics } from "./metrics";
import type { ServedModel } from "./models";
import type { JobTracing } from "./tracing";

export const agentVersion = "0.1.0";

export interface ConnectionOptions {
  gateway: string;
  identity: AgentIdentity;
  enrollmentCode: string | undefined;
  models: ServedModel[];
  maxConcurrentTotal: number;
  metrics: AgentMetrics;
  /** Each job's span, when traces are on (OTEL_* variables). */
  tracing?: JobTracing | undefined;
  log(line: string): void;
  /** Called once the gateway has bound this key to a provider id. */
  onAuthenticated(providerId: string): void;
}

/** The per-job log line: what the backend did with one job, and how fast. */
function jobLine(jobId: string, modelId: string, report: JobReport): string {
  const parts = [
    `job ${jobId} ${modelId}: ${report.outcome}${report.status === undefined ? "" : ` ${report.status}`}`,
    `in ${(report.durationMs / 1000).toFixed(2)} s`,
    `${report.bytes} bytes`,
  ];
  if (report.outputTokens !== undefined) {
    const perSecond = report.durationMs > 0 ? report.outputTokens / (report.durationMs / 1000) : 0;
    parts.push(`${report.outputTokens} output tokens (${perSecond.toFixed(1)} tokens/s)`);
  }
  if (report.lowered)
    parts.push(`output limit ${report.lowered.from} lowered to ${report.lowered.to} to fit the context`);
  if (report.error) parts.push(report.error);
  return parts.join(", ");
}

/** Close codes after which reconnecting cannot help. */
const finalCloseCodes = new Map([
  [4001, "authentication refused"],
  [4002, "another agent connected with the same identity"],
  [4003, "the host is retired"],
]);

function providerConnectUrl(gateway: string): string {
  return `${gateway.replace(/\/+$/, "").replace(/^http/, "ws")}/provider/connect`;
}

/** Exponential backoff from 1 s to 60 s with ±20% jitter. */
function backoffMs(attempt: number, random = Math.random): number {
  const base = Math.min(60_000, 1_000 * 2 ** attempt);
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * Keeps one authenticated connection to the gateway: reconnects with backoff (reset after
 * every successful authentication), announces capabilities after each auth, beats every 15 s
 * and runs jobs. Resolves with the reason when the gateway says not to come back.
 */
export async function runConnection(options: ConnectionOptions, stop: AbortSignal): Promise<string> {
  let attempt = 0;
  while (!stop.aborted) {
    const outcome = await connectOnce(options, stop);
    if (outcome.final) return outcome.reason;
    if (stop.aborted) break;
    if (outcome.authenticated) attempt = 0;
    const wait = backoffMs(attempt);
    attempt += 1;
    options.metrics.reconnects += 1;
    options.log(`disconnected (${outcome.reason}); reconnecting in ${(wait / 1000).toFixed(1)} s`);
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, wait);
      stop.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
  }
  return "stopped";
}

function connectOnce(
  options: ConnectionOptions,
  stop: AbortSignal,
): Promise<{ authenticated: boolean; final: boolean; reason: string }> {
  const { metrics } = options;
  return new Promise((resolve) => {
    const ws = new WebSocket(providerConnectUrl(options.gateway));
    const jobs = new Map<string, RunningJob>();
    let authenticated = false;
    let heartbeat: NodeJS.Timeout | undefined;
    const beat = () =>
      send({
        type: "heartbeat",
        queue_depth: jobs.size,
        tokens_per_sec_p50: metrics.tokensPerSecP50(),
      });
    const send = (message: AgentMessage) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
    };
    const onStop = () => ws.close(1000, "agent stopping");
    stop.addEventListener("abort", onStop, { once: true });

    ws.on("message", (data) => {
      const parsed = parseGatewayFrame(data.toString());
      if (!parsed.ok) {
        options.log(`ignored a frame from the gateway: ${parsed.violation.reason}`);
        return;
      }
      const message = parsed.message;
      switch (message.type) {
        case "auth_challenge":
          send({
            type: "auth_response",
            pubkey: options.identity.pubkey,
            signature: signNonce(options.identity, message.nonce),
            agent_version: agentVersion,
            ...(options.enrollmentCode && !options.identity.providerId
              ? { enrollment_code: options.enrollmentCode }
              : {}),
          });
          return;
        case "auth_ok": {
          authenticated = true;
          metrics.connected = true;
          metrics.providerId = message.provider_id;
          metrics.hostStatus = message.status;
          options.onAuthenticated(metrics.providerId);
          send({
            type: "capabilities",
            models: options.models.map((model) => ({
              model_id: model.modelId,
              input_per_1m: model.inputPer1m,
              output_per_1m: model.outputPer1m,
              ...(model.requestPrice === undefined ? {} : { request_price_microunits: model.requestPrice }),
              max_concurrent: model.maxConcurrent,
              backend: model.backend.config.kind,
              ...(model.contextWindow === undefined ? {} : { context_window: model.contextWindow }),
              format: model.backend.config.format ?? "openai",
            })),
            limits: { max_concurrent_total: options.maxConcurrentTotal },
            metadata: { agent_version: agentVersion },
          });
          beat();
          heartbeat = setInterval(beat, 15_000);
          return;
        }
        case "auth_failed":
          options.log(`authentication failed: ${message.reason}`);
          return;
        case "capabilities_ack": {
          metrics.models = message.accepted;
          metrics.rejected = message.rejected.map((item) => item.model_id);
          for (const item of message.rejected)
            options.log(`gateway refused ${item.model_id}: ${item.reason}`);
          options.log(`serving ${metrics.models.join(", ") || "no models"}`);
          return;
        }
        case "job": {
          const job = message;
          const model = options.models.find((item) => item.modelId === job.model_id);
          if (!model) {
            send({
              type: "job_error",
              job_id: job.job_id,
              error_code: "model_not_loaded",
              message: job.model_id,
            });
            return;
          }
          const running = new RunningJob(job.job_id, (text) => signText(options.identity, text));
          jobs.set(job.job_id, running);
          metrics.jobsInFlight += 1;
          const started = Date.now();
          const span = options.tracing?.start(job, {
            kind: model.backend.config.kind,
            modelId: model.modelId,
          });
          running
            .run(job, model, send)
            .then((report) => {
              span?.end(report);
              if (report.outcome === "done") metrics.jobsTotal += 1;
              else if (report.outcome === "failed") metrics.jobsFailed += 1;
              metrics.backendOk = report.outcome !== "failed";
              if (report.outputTokens !== undefined) {
                metrics.recordThroughput(report.outputTokens, report.durationMs);
                // The new throughput reaches the gateway (and the operator's page) now, not at the next beat.
                beat();
              }
              options.log(jobLine(job.job_id, job.model_id, report));
            })
            .catch((error: unknown) => {
              span?.crash(error);
              metrics.jobsFailed += 1;
              options.log(
                `job ${job.job_id} crashed: ${error instanceof Error ? error.message : String(error)}`,
              );
            })
            .finally(() => {
              jobs.delete(job.job_id);
              metrics.jobsInFlight -= 1;
              metrics.jobSecondsTotal += (Date.now() - started) / 1000;
            });
          return;
        }
        case "job_cancel":
          jobs.get(message.job_id)?.cancel();
          return;
        case "job_pause":
          jobs.get(message.job_id)?.pause();
          return;
        case "job_resume":
          jobs.get(message.job_id)?.resume();
          return;
      }
    });
    ws.on("error", () => undefined);
    ws.on("close", (code, reasonBuffer) => {
      clearInterval(heartbeat);
      stop.removeEventListener("abort", onStop);
      for (const job of jobs.values()) job.cancel();
      metrics.connected = false;
      const reason = reasonBuffer.toString() || `close ${code}`;
      const final = finalCloseCodes.get(code);
      resolve({ authenticated, final: final !== undefined, reason: final ? `${final}: ${reason}` : reason });
    });
  });
}
