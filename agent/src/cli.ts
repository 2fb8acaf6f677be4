import { existsSync, readFileSync } from "node:fs";
import type { Server } from "node:http";
import { parseArgs } from "node:util";
import { backendLocation, discoverModels, loadEngines } from "./backends";
import { type AgentConfig, configProblems, defaultConfigPath, loadConfig, saveConfig } from "./config";
import { agentVersion, runConnection } from "./connection";
import { loadOrCreateIdentity, readIdentity, writeIdentity } from "./identity";
import { AgentMetrics, serveMetrics } from "./metrics";

const usage = `pod-agent ${agentVersion}: sell inference from a local model server through a Pod Gateway

usage: pod-agent [run|enroll|validate|status|version] [--config <file>]

  run        connect to the gateway and serve jobs (the default)
  enroll     create the agent identity and enroll a host:
               --gateway <url> --name <display name> --wallet <solana address> [--email <address>]
             or pair with an existing host: --gateway <url> --host-token pod_host_…
             or store a code from the dashboard: --enrollment-code POD-ENROLL-…
  validate   check the config and that each backend answers
  status     one line: connection, models, jobs (from a running agent) and the host's state

Config: ${defaultConfigPath()} (POD_AGENT_CONFIG); env overrides POD_GATEWAY_URL, POD_ENROLLMENT_CODE,
POD_HOST_TOKEN, POD_AGENT_IDENTITY, POD_AGENT_METRICS_ADDR, POD_AGENT_BACKEND_URL,
POD_AGENT_GGUF (a .gguf file served in-process) with POD_AGENT_GGUF_MODEL_ID.`;

type Print = (line: string) => void;

export async function main(argv: string[], print: Print = (line) => console.log(line)): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: "string" },
      gateway: { type: "string" },
      name: { type: "string" },
      wallet: { type: "string" },
      email: { type: "string" },
      "host-token": { type: "string" },
      "enrollment-code": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const command = positionals[0] ?? "run";
  if (values.help || command === "help") {
    print(usage);
    return 0;
  }
  const configPath = values.config ?? defaultConfigPath();
  const config = loadConfig(configPath);
  if (values.gateway) config.gateway = values.gateway;
  switch (command) {
    case "version":
      print(agentVersion);
      return 0;
    case "enroll":
      return enroll(configPath, config, values, print);
    case "validate":
      return validate(config, print);
    case "status":
      return status(config, print);
    case "run":
      return run(config, print);
    default:
      print(`unknown command ${command}\n\n${usage}`);
      return 2;
  }
}

async function enroll(
  configPath: string,
  config: AgentConfig,
  values: {
    name?: string;
    wallet?: string;
    email?: string;
    "host-token"?: string;
    "enrollment-code"?: string;
  },
  print: Print,
): Promise<number> {
  const { identity, created } = loadOrCreateIdentity(config.identity_path);
  print(
    `identity: ${identity.pubkey} (${created ? "created" : "existing"}, ${config.identity_path}, mode 0600)`,
  );
  const saved: Partial<AgentConfig> = existsSync(configPath) ? loadConfigFile(configPath) : {};
  saved.gateway = config.gateway;
  if (values["enrollment-code"]) {
    saved.enrollment_code = values["enrollment-code"];
  } else if (values["host-token"]) {
    const response = await fetch(`${config.gateway}/v1/host/profile`, {
      headers: { authorization: `Bearer ${values["host-token"]}` },
    });
    if (!response.ok) {
      print(`pairing failed: ${response.status} ${await response.text()}`);
      return 1;
    }
    const profile = (await response.json()) as { provider_id: string; metadata: { enrollment_code: string } };
    saved.enrollment_code = profile.metadata.enrollment_code;
    saved.host_token = values["host-token"];
    print(`paired with host ${profile.provider_id}`);
  } else {
    if (!values.name || !values.wallet) {
      print("enroll needs --name and --wallet (or --host-token, or --enrollment-code)");
      return 2;
    }
    const response = await fetch(`${config.gateway}/v1/host/enroll`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        display_name: values.name,
        wallet: values.wallet,
        ...(values.email ? { contact_email: values.email } : {}),
      }),
    });
    if (response.status !== 201) {
      print(`enrolment failed: ${response.status} ${await response.text()}`);
      return 1;
    }
    const body = (await response.json()) as {
      provider_id: string;
      host_token: string;
      enrollment_code: string;
      bond: { deposit_code: string; amount_usdc: number; destination: string | undefined };
    };
    saved.enrollment_code = body.enrollment_code;
    saved.host_token = body.host_token;
    print(`provider_id: ${body.provider_id}`);
    print(`enrollment_code: ${body.enrollment_code}`);
    print(
      `bond: send ${body.bond.amount_usdc} USDC with code ${body.bond.deposit_code} to ${body.bond.destination ?? "the gateway's deposit address"}`,
    );
  }
  saveConfig(configPath, saved);
  print(`config written: ${configPath} (mode 0600; it holds the host token)`);
  return 0;
}

function loadConfigFile(path: string): Partial<AgentConfig> {
  return JSON.parse(readFileSync(path, "utf8")) as Partial<AgentConfig>;
}

async function validate(config: AgentConfig, print: Print): Promise<number> {
  const problems = configProblems(config);
  for (const problem of problems) print(`config: ${problem}`);
  const discovery = await discoverModels(config);
  // A GGUF file is loaded once here, so a model llama.cpp cannot run fails validation.
  const models = await loadEngines(discovery.models, discovery.notes);
  for (const note of discovery.notes) print(`backend: ${note}`);
  for (const model of models) {
    print(
      `ok: ${model.modelId} on ${model.backend.kind} ${backendLocation(model.backend)} at ${model.inputPer1m}/${model.outputPer1m} microunits per 1M tokens`,
    );
  }
  if (!existsSync(config.identity_path))
    print(`identity: none yet at ${config.identity_path}; run pod-agent enroll`);
  const ok = problems.length === 0 && models.length > 0;
  print(ok ? "valid" : "not valid: fix the lines above");
  return ok ? 0 : 1;
}

async function status(config: AgentConfig, print: Print): Promise<number> {
  let line = "agent not running";
  if (config.metrics_addr) {
    try {
      const response = await fetch(`http://${config.metrics_addr}/status`, {
        signal: AbortSignal.timeout(1_000),
      });
      if (response.ok) line = (await response.text()).trim();
    } catch {
      // not running: say so below
    }
  }
  if (config.host_token) {
    const headers = { authorization: `Bearer ${config.host_token}` };
    const [profile, balance] = await Promise.all([
      fetch(`${config.gateway}/v1/host/profile`, { headers }).then((r) => (r.ok ? r.json() : undefined)),
      fetch(`${config.gateway}/v1/host/balance`, { headers }).then((r) => (r.ok ? r.json() : undefined)),
    ]).catch(() => [undefined, undefined]);
    if (profile) line += ` | host ${(profile as { status: string }).status}`;
    if (balance) line += ` | earnings ${formatUsdc((balance as { usdc_balance: number }).usdc_balance)} USDC`;
  }
  print(line);
  return line.startsWith("agent not running") ? 3 : 0;
}

function formatUsdc(microunits: number): string {
  return (microunits / 1_000_000).toFixed(6);
}

async function run(config: AgentConfig, print: Print): Promise<number> {
  const log = (line: string) => print(`${new Date().toISOString()} ${line}`);
  const problems = configProblems(config);
  if (problems.length > 0) {
    for (const problem of problems) log(`config: ${problem}`);
    return 1;
  }
  if (!existsSync(config.identity_path) && !config.enrollment_code) {
    log(`no identity at ${config.identity_path}: run pod-agent enroll first`);
    return 1;
  }
  const identity = existsSync(config.identity_path)
    ? readIdentity(config.identity_path)
    : loadOrCreateIdentity(config.identity_path).identity;
  const discovery = await discoverModels(config);
  const models = await loadEngines(discovery.models, discovery.notes);
  for (const note of discovery.notes) log(`backend: ${note}`);
  for (const model of models) {
    if (model.engine) log(`loaded ${model.engine.describe()}`);
  }
  if (models.length === 0) {
    log("no model to sell: start a backend or configure one, and set prices");
    return 1;
  }
  const metrics = new AgentMetrics();
  metrics.backendOk = true;
  let metricsServer: Server | undefined;
  if (config.metrics_addr) {
    metricsServer = await serveMetrics(metrics, config.metrics_addr);
    log(`metrics on http://${config.metrics_addr}/metrics`);
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const statusTimer = setInterval(() => log(metrics.statusLine()), config.status_interval_s * 1000);
  const reason = await runConnection(
    {
      gateway: config.gateway,
      identity,
      enrollmentCode: config.enrollment_code,
      models,
      maxConcurrentTotal: config.limits.max_concurrent,
      metrics,
      log,
      onAuthenticated: (providerId) => {
        if (identity.providerId !== providerId) {
          identity.providerId = providerId;
          writeIdentity(config.identity_path, identity);
        }
        log(metrics.statusLine());
      },
    },
    stop.signal,
  );
  clearInterval(statusTimer);
  metricsServer?.close();
  log(`stopped: ${reason}`);
  return reason === "stopped" ? 0 : 1;
}
