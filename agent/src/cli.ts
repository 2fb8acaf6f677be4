import { existsSync, readFileSync, renameSync } from "node:fs";
import type { Server } from "node:http";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { postBond } from "./bond";
import { type AgentConfig, configProblems, defaultConfigPath, loadConfig, saveConfig } from "./config";
import { agentVersion, runConnection } from "./connection";
import { watchActivation } from "./host-activation";
import { fetchHostProfile, usdc } from "./host-api";
import { type AgentIdentity, loadOrCreateIdentity, readIdentity, writeIdentity } from "./identity";
import { AgentMetrics, serveMetrics } from "./metrics";
import { discoverModels, prepareModels } from "./models";
import { startJobTracing } from "./tracing";

const usage = `pod-agent ${agentVersion}: sell inference from a local model server through a Pod Gateway

usage: pod-agent [run|enroll|bond|validate|status|version] [--config <file>]

  run        connect to the gateway and serve jobs (the default)
  enroll     create the agent identity and enroll a new host:
               --gateway <url> --name <display name> --wallet <solana address> [--email <address>]
             (asks before creating a second host; --new-host to do so without asking)
             or pair with an existing host: --gateway <url> --host-token pod_host_…
             or use a host's enrollment code (GET /v1/host/profile): --enrollment-code POD-ENROLL-…
  bond       post the 50 USDC bond from a Solana keypair file: --keypair <file> [--wait <seconds>]
  validate   check the config, the identity and that each backend answers
  status     one line: connection, models, jobs (from a running agent) and the host's state

Config: ${defaultConfigPath()} (POD_AGENT_CONFIG); env overrides POD_GATEWAY_URL, POD_ENROLLMENT_CODE,
POD_HOST_TOKEN, POD_AGENT_IDENTITY, POD_AGENT_METRICS_ADDR, POD_AGENT_BACKEND_URL,
POD_AGENT_GGUF (a .gguf file served in-process) with POD_AGENT_GGUF_MODEL_ID.`;

type Print = (line: string) => void;
/** Asks a yes/no question on the terminal; false when there is no terminal to ask on. */
type Confirm = (question: string) => Promise<boolean>;

async function askOnTerminal(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await terminal.question(`${question} [y/N] `)).trim());
  } finally {
    terminal.close();
  }
}

export async function main(
  argv: string[],
  print: Print = (line) => console.log(line),
  confirm: Confirm = askOnTerminal,
): Promise<number> {
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
      "new-host": { type: "boolean" },
      keypair: { type: "string" },
      wait: { type: "string" },
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
      return enroll(configPath, config, values, print, confirm);
    case "bond":
      return bond(config, values, print);
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

/** The identity file's enrolment, if there is a readable one. */
function storedIdentity(path: string): AgentIdentity | undefined {
  return existsSync(path) ? readIdentity(path) : undefined;
}

/** The host token this agent knows: the config's (or POD_HOST_TOKEN) first, else the identity file's. */
function knownHostToken(config: AgentConfig): string | undefined {
  return config.host_token ?? storedIdentity(config.identity_path)?.hostToken;
}

function providerPageUrl(gateway: string): string {
  return `${gateway.replace(/\/+$/, "")}/dashboard/provider`;
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
    "new-host"?: boolean;
  },
  print: Print,
  confirm: Confirm,
): Promise<number> {
  const creating = !values["enrollment-code"] && !values["host-token"];
  if (creating && (!values.name || !values.wallet)) {
    print("enroll needs --name and --wallet (or --host-token, or --enrollment-code)");
    return 2;
  }
  const earlier = storedIdentity(config.identity_path);
  const enrolledAs =
    earlier?.providerId ?? earlier?.enrollmentCode ?? config.enrollment_code ?? config.host_token;
  if (creating && earlier && enrolledAs) {
    const which = earlier.providerId ? `host ${earlier.providerId}` : "a host";
    print(`this agent is already enrolled as ${which} (identity ${config.identity_path})`);
    const second =
      values["new-host"] === true ||
      (await confirm("Create a second host, with its own bond and a new identity key?"));
    if (!second) {
      print(
        "nothing created. To run this host, use pod-agent run; to pair with another existing host, --host-token; to create a second host, --new-host.",
      );
      return 2;
    }
    // The old key is kept, renamed: it is still the credential of the first host.
    const kept = `${config.identity_path}.${earlier.providerId ?? "previous"}`;
    renameSync(config.identity_path, kept);
    print(`the first host's identity is kept at ${kept}`);
  }
  const { identity, created } = loadOrCreateIdentity(config.identity_path);
  print(
    `identity: ${identity.pubkey} (${created ? "created" : "existing"}, ${config.identity_path}, mode 0600)`,
  );
  if (values["enrollment-code"]) {
    identity.enrollmentCode = values["enrollment-code"];
  } else if (values["host-token"]) {
    const hostToken = values["host-token"];
    let profile: Awaited<ReturnType<typeof fetchHostProfile>> & { metadata?: { enrollment_code?: string } };
    try {
      profile = await fetchHostProfile(config.gateway, hostToken);
    } catch (error) {
      print(`pairing failed: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
    identity.enrollmentCode = profile.metadata?.enrollment_code;
    identity.hostToken = hostToken;
    print(`paired with host ${profile.provider_id}`);
  } else {
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
      bond: { deposit_code: string; amount_microunits: number; destination: string | null };
    };
    identity.enrollmentCode = body.enrollment_code;
    identity.hostToken = body.host_token;
    print(`provider_id: ${body.provider_id}`);
    print(`enrollment_code: ${body.enrollment_code}`);
    print(
      `host_token: ${body.host_token}\n  (shown once; stored in ${config.identity_path}, mode 0600; sign in with it at ${providerPageUrl(config.gateway)})`,
    );
    print(
      body.bond.destination === null
        ? `bond: this gateway takes no on-chain bonds; its operator activates the host (code ${body.bond.deposit_code})`
        : `bond: post ${usdc(body.bond.amount_microunits)} with the memo ${body.bond.deposit_code} to ${body.bond.destination}\n` +
            `  (from a browser wallet on ${providerPageUrl(config.gateway)}, or from a keypair file: pod-agent bond --keypair <file>)`,
    );
  }
  writeIdentity(config.identity_path, identity);
  // The config keeps where the gateway is; the enrolment lives with the key, so editing or
  // replacing the config cannot lose it.
  const saved: Partial<AgentConfig> = existsSync(configPath)
    ? (JSON.parse(readFileSync(configPath, "utf8")) as Partial<AgentConfig>)
    : {};
  saved.gateway = config.gateway;
  saved.identity_path = config.identity_path;
  delete saved.enrollment_code;
  delete saved.host_token;
  saveConfig(configPath, saved);
  print(`config written: ${configPath}`);
  return 0;
}

async function bond(
  config: AgentConfig,
  values: { keypair?: string; wait?: string },
  print: Print,
): Promise<number> {
  const hostToken = knownHostToken(config);
  if (!values.keypair) {
    print("bond needs --keypair <file>: a Solana keypair file (solana-keygen) holding the USDC and some SOL");
    return 2;
  }
  if (!hostToken) {
    print(`no host token in ${config.identity_path}: run pod-agent enroll first (or set POD_HOST_TOKEN)`);
    return 2;
  }
  const waitSeconds = values.wait === undefined ? 120 : Number(values.wait);
  if (!Number.isSafeInteger(waitSeconds) || waitSeconds < 0) {
    print(`--wait must be a whole number of seconds, got ${values.wait}`);
    return 2;
  }
  try {
    return await postBond(
      { gateway: config.gateway, hostToken, keypairPath: values.keypair, waitSeconds },
      print,
    );
  } catch (error) {
    print(`bond failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

/** What is wrong with the identity this config names, as sentences. */
function identityProblems(config: AgentConfig): string[] {
  const identity = storedIdentity(config.identity_path);
  // An enrollment code alone (POD_ENROLLMENT_CODE in a container) is enough: run creates the key.
  if (!identity && config.enrollment_code) return [];
  if (!identity)
    return [`no identity at ${config.identity_path}: run pod-agent enroll (or fix identity_path)`];
  if (!identity.providerId && !identity.enrollmentCode && !config.enrollment_code)
    return [
      `the identity at ${config.identity_path} is not enrolled with any host: run pod-agent enroll, or pod-agent enroll --host-token <token> for an existing host`,
    ];
  return [];
}

async function validate(config: AgentConfig, print: Print): Promise<number> {
  const problems = [...configProblems(config), ...identityProblems(config)];
  for (const problem of problems) print(`config: ${problem}`);
  const discovery = await discoverModels(config);
  // A GGUF file is loaded once here, so a model llama.cpp cannot run fails validation.
  const models = await prepareModels(discovery.models, discovery.notes);
  for (const note of discovery.notes) print(`backend: ${note}`);
  for (const model of models) {
    print(
      `ok: ${model.modelId} on ${model.backend.config.kind} ${model.backend.location()} at ${model.requestPrice === undefined ? `${model.inputPer1m}/${model.outputPer1m} microunits per 1M tokens` : `${model.requestPrice} microunits per request`}` +
        (model.contextWindow === undefined ? "" : `, context ${model.contextWindow} tokens`),
    );
  }
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
  const hostToken = knownHostToken(config);
  if (hostToken) {
    const headers = { authorization: `Bearer ${hostToken}` };
    const [profile, balance] = await Promise.all([
      fetch(`${config.gateway}/v1/host/profile`, { headers }).then((r) => (r.ok ? r.json() : undefined)),
      fetch(`${config.gateway}/v1/host/balance`, { headers }).then((r) => (r.ok ? r.json() : undefined)),
    ]).catch(() => [undefined, undefined]);
    if (profile) line += ` | host ${(profile as { status: string }).status}`;
    if (balance) line += ` | earnings ${usdc((balance as { usdc_balance: number }).usdc_balance)}`;
  }
  print(line);
  return line.startsWith("agent not running") ? 3 : 0;
}

async function run(config: AgentConfig, print: Print): Promise<number> {
  const log = (line: string) => print(`${new Date().toISOString()} ${line}`);
  const problems = [...configProblems(config), ...identityProblems(config)];
  if (problems.length > 0) {
    for (const problem of problems) log(`config: ${problem}`);
    return 1;
  }
  const { identity } = loadOrCreateIdentity(config.identity_path);
  const discovery = await discoverModels(config);
  const loaded: string[] = [];
  const models = await prepareModels(discovery.models, discovery.notes, loaded);
  for (const note of discovery.notes) log(`backend: ${note}`);
  for (const line of loaded) log(line);
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
  const tracing = await startJobTracing(process.env);
  if (tracing) log(`traces to ${tracing.url}`);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const statusTimer = setInterval(() => log(metrics.statusLine()), config.status_interval_s * 1000);
  watchActivation(
    { gateway: config.gateway, hostToken: knownHostToken(config), everyMs: 3_000 },
    metrics,
    log,
    stop.signal,
  );
  const reason = await runConnection(
    {
      gateway: config.gateway,
      identity,
      enrollmentCode: config.enrollment_code ?? identity.enrollmentCode,
      models,
      maxConcurrentTotal: config.limits.max_concurrent,
      metrics,
      tracing,
      log,
      onAuthenticated: (providerId) => {
        if (identity.providerId !== providerId) {
          identity.providerId = providerId;
          writeIdentity(config.identity_path, identity);
        }
        log(metrics.statusLine());
        if (metrics.hostStatus === "pending")
          log(
            `host pending: waiting for its bond (pod-agent bond --keypair <file>, or a wallet on ${providerPageUrl(config.gateway)})`,
          );
      },
    },
    stop.signal,
  );
  clearInterval(statusTimer);
  metricsServer?.close();
  // The spans of the last jobs go before the process does.
  await tracing?.shutdown().catch(() => undefined);
  // A stop asked for (a signal) is said as such; any other end names why ("stopped: another agent connected …").
  log(reason === "stopped" ? "stopped" : `stopped: ${reason}`);
  return reason === "stopped" ? 0 : 1;
}
