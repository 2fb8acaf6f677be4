import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { BackendConfig } from "./backends/backend";
import { backendKindNames, createBackend, isBackendKind } from "./backends/backend-kinds";

/** Per 1M tokens (input and output), or per request (`request_price_microunits` alone). */
interface ModelPrice {
  input_per_1m?: number;
  output_per_1m?: number;
  request_price_microunits?: number;
  max_concurrent?: number;
}

export interface AgentConfig {
  /** The gateway's base URL (http or https); the agent dials <gateway>/provider/connect. */
  gateway: string;
  enrollment_code?: string;
  /** The host token from enrolment: lets `status` show the host's state and earnings. */
  host_token?: string;
  identity_path: string;
  backends: BackendConfig[];
  pricing: {
    default_input_per_1m?: number;
    default_output_per_1m?: number;
    models?: Record<string, ModelPrice>;
  };
  limits: { max_concurrent: number; max_concurrent_per_model: number };
  /** host:port of the Prometheus endpoint; empty turns it off. */
  metrics_addr: string;
  /** Seconds between one-line status prints. */
  status_interval_s: number;
}

export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.POD_AGENT_CONFIG ?? join(homedir(), ".config", "pod-agent", "config.json");
}

function defaults(): AgentConfig {
  return {
    gateway: "http://127.0.0.1:3000",
    identity_path: join(homedir(), ".config", "pod-agent", "identity.key"),
    backends: [],
    pricing: {},
    limits: { max_concurrent: 4, max_concurrent_per_model: 2 },
    metrics_addr: "127.0.0.1:9090",
    status_interval_s: 30,
  };
}

/** The config file (if any) with environment overrides on top; problems are listed, not guessed around. */
export function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): AgentConfig {
  const base = defaults();
  const file = existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Partial<AgentConfig>) : {};
  const config: AgentConfig = {
    ...base,
    ...file,
    pricing: { ...base.pricing, ...file.pricing },
    limits: { ...base.limits, ...file.limits },
  };
  if (env.POD_GATEWAY_URL) config.gateway = env.POD_GATEWAY_URL;
  if (env.POD_ENROLLMENT_CODE) config.enrollment_code = env.POD_ENROLLMENT_CODE;
  if (env.POD_HOST_TOKEN) config.host_token = env.POD_HOST_TOKEN;
  if (env.POD_AGENT_IDENTITY) config.identity_path = env.POD_AGENT_IDENTITY;
  if (env.POD_AGENT_METRICS_ADDR !== undefined) config.metrics_addr = env.POD_AGENT_METRICS_ADDR;
  if (env.POD_AGENT_BACKEND_URL) config.backends = [{ kind: "openai", url: env.POD_AGENT_BACKEND_URL }];
  if (env.POD_AGENT_GGUF) {
    config.backends = [
      {
        kind: "gguf",
        model_path: env.POD_AGENT_GGUF,
        ...(env.POD_AGENT_GGUF_MODEL_ID ? { model_id: env.POD_AGENT_GGUF_MODEL_ID } : {}),
      },
    ];
  }
  return config;
}

export function saveConfig(path: string, config: Partial<AgentConfig>): void {
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}

/** Everything wrong with a config, as sentences; empty when it is usable. */
export function configProblems(config: AgentConfig): string[] {
  const problems: string[] = [];
  if (!/^https?:\/\//.test(config.gateway))
    problems.push(`gateway must be an http(s) URL, got ${config.gateway}`);
  for (const backend of config.backends) {
    if (!isBackendKind(backend.kind)) {
      problems.push(`backend kind ${backend.kind} is not one of ${backendKindNames.join(", ")}`);
      continue;
    }
    problems.push(...createBackend(backend).problems());
  }
  for (const [model, price] of Object.entries(config.pricing.models ?? {})) {
    if (price.request_price_microunits !== undefined) {
      const value = price.request_price_microunits;
      if (!Number.isSafeInteger(value) || value <= 0)
        problems.push(`${model}: a price per request is whole USDC microunits above 0, got ${value}`);
      if (price.input_per_1m || price.output_per_1m)
        problems.push(
          `${model}: a price per request has no token prices; drop input_per_1m and output_per_1m`,
        );
      continue;
    }
    for (const value of [price.input_per_1m, price.output_per_1m]) {
      if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
        problems.push(`${model}: prices are whole USDC microunits per 1M tokens, got ${value}`);
      }
    }
  }
  return problems;
}
