import { createServer, type Server } from "node:http";

/** The agent's counters, exposed in the Prometheus text format and summed up in the status line. */
export class AgentMetrics {
  connected = false;
  providerId: string | undefined;
  hostStatus: string | undefined;
  models: string[] = [];
  rejected: string[] = [];
  jobsTotal = 0;
  jobsFailed = 0;
  jobsInFlight = 0;
  jobSecondsTotal = 0;
  reconnects = 0;
  backendOk = false;
  /** Output tokens per second of the last jobs whose backend reported usage, newest last. */
  readonly #throughput: number[] = [];

  /** Notes one finished job's throughput (from the backend's own usage figure). */
  recordThroughput(outputTokens: number, durationMs: number): void {
    if (durationMs <= 0 || outputTokens <= 0) return;
    this.#throughput.push(outputTokens / (durationMs / 1000));
    if (this.#throughput.length > 20) this.#throughput.shift();
  }

  /** The median of the recent jobs' tokens per second (0 before any): what heartbeats report. */
  tokensPerSecP50(): number {
    const sorted = [...this.#throughput].sort((a, b) => a - b);
    const middle = sorted[Math.floor(sorted.length / 2)];
    return middle === undefined ? 0 : Math.round(middle * 10) / 10;
  }

  statusLine(): string {
    return [
      this.connected ? `connected as ${this.providerId} (${this.hostStatus})` : "disconnected",
      `models: ${this.models.join(", ") || "none"}`,
      `jobs: ${this.jobsInFlight} running, ${this.jobsTotal} done, ${this.jobsFailed} failed`,
    ].join(" | ");
  }

  prometheus(): string {
    const lines = [
      "# HELP pod_agent_ws_connected 1 while authenticated to the gateway.",
      "# TYPE pod_agent_ws_connected gauge",
      `pod_agent_ws_connected ${this.connected ? 1 : 0}`,
      "# TYPE pod_agent_models_served gauge",
      `pod_agent_models_served ${this.models.length}`,
      "# TYPE pod_agent_jobs_total counter",
      `pod_agent_jobs_total ${this.jobsTotal}`,
      "# TYPE pod_agent_dispatch_failures_total counter",
      `pod_agent_dispatch_failures_total ${this.jobsFailed}`,
      "# TYPE pod_agent_jobs_in_flight gauge",
      `pod_agent_jobs_in_flight ${this.jobsInFlight}`,
      "# TYPE pod_agent_job_duration_seconds_sum counter",
      `pod_agent_job_duration_seconds_sum ${this.jobSecondsTotal.toFixed(3)}`,
      "# TYPE pod_agent_reconnects_total counter",
      `pod_agent_reconnects_total ${this.reconnects}`,
      "# TYPE pod_agent_backend_ok gauge",
      `pod_agent_backend_ok ${this.backendOk ? 1 : 0}`,
    ];
    return `${lines.join("\n")}\n`;
  }
}

/** Serves GET /metrics on `addr` (host:port); the returned server is closed on shutdown. */
export async function serveMetrics(metrics: AgentMetrics, addr: string): Promise<Server> {
  const [host = "127.0.0.1", port = "9090"] = addr.split(/:(?=\d+$)/);
  const server = createServer((request, response) => {
    if (request.url === "/metrics") {
      response.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
      response.end(metrics.prometheus());
      return;
    }
    if (request.url === "/status") {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end(`${metrics.statusLine()}\n`);
      return;
    }
    response.writeHead(404);
    response.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(Number(port), host, resolve);
  });
  return server;
}
