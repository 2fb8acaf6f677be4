import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { editConfig, podAgent, type RunningAgent, startAgent } from "../../helpers/agent-process";
import { type FakeUpstream, startFakeUpstream } from "../../helpers/fake-upstream";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../../helpers/otlp-receiver";
import { type PrivateRedis, privateRedisSkipReason, startPrivateRedis } from "../../helpers/private-redis";
import { verifiedReceipt } from "../../helpers/receipts";
import { createTestDatabase, type TestDatabase } from "../../helpers/test-database";
import { type GatewayProcess, startGatewayProcess } from "../../helpers/x402-gateway-process";

/**
 * One marketplace request across two replicas, followed as an operator would: replica A takes
 * the request, the agent is held by replica B. Both replicas and the agent process export to
 * one local OTLP receiver; the request is one trace (A's server span, its replica hop, B's agent
 * job, the agent's own span of the job at its backend, A's settlement), and its receipt carries
 * the agent's co-signature, checked offline.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
const redisSkip = privateRedisSkipReason();
const skipReason = !postgresUrl
  ? "cross-replica trace skipped: set TEST_DATABASE_URL (replicas are separate processes)"
  : redisSkip;
if (skipReason) console.warn(skipReason);

const adminToken = "trace-admin-token";
const marketOnly = { "X-Pod-Routing-Mode": "marketplace-only" };

describe.skipIf(skipReason !== undefined)("a traced marketplace request across two replicas", () => {
  let database: TestDatabase;
  let redis: PrivateRedis;
  let receiver: OtlpReceiver;
  let backend: FakeUpstream;
  let agent: RunningAgent | undefined;
  let providerId = "";
  const replicas: Partial<Record<"a" | "b", GatewayProcess>> = {};

  beforeAll(async () => {
    [database, redis, receiver, backend] = await Promise.all([
      createTestDatabase(),
      startPrivateRedis(),
      startOtlpReceiver(),
      startFakeUpstream("openai", "agent-backend"),
    ]);
    const env = (name: string): Record<string, string> => ({
      DATABASE_URL: database.url ?? "",
      REDIS_URL: redis.url,
      REDIS_NAMESPACE: `trace-${database.url?.split("/").pop() ?? "x"}`,
      REPLICA_ID: name,
      ADMIN_TOKEN: adminToken,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: `gateway-${name}`,
    });
    const a = await startGatewayProcess(env("a"), { startTimeoutMs: 150_000 });
    const b = await startGatewayProcess(env("b"), { startTimeoutMs: 150_000 });
    Object.assign(replicas, { a, b });
    const dir = mkdtempSync(join(tmpdir(), "pod-agent-trace-"));
    const configPath = join(dir, "config.json");
    const output = await podAgent(
      [
        "enroll",
        "--config",
        configPath,
        "--gateway",
        b.url,
        "--name",
        "traced host",
        "--wallet",
        "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS",
      ],
      { POD_AGENT_IDENTITY: join(dir, "identity.key") },
    );
    providerId = /provider_id: (\S+)/.exec(output)?.[1] ?? "";
    const activated = await fetch(`${b.url}/v1/admin/hosts/${providerId}/activate`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(activated.status).toBe(200);
    editConfig(configPath, (config) => {
      config.identity_path = join(dir, "identity.key");
      config.backends = [{ kind: "llamacpp", url: backend.baseUrl, models: ["gpt-4o-mini"] }];
      config.pricing = { models: { "gpt-4o-mini": { input_per_1m: 100_000, output_per_1m: 400_000 } } };
      config.metrics_addr = "";
    });
    agent = startAgent(configPath, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "pod-agent-test",
    });
    await agent.waitFor("serving gpt-4o-mini");
    expect(agent.output()).toContain(`traces to ${receiver.url}/v1/traces`);
  }, 400_000);

  afterAll(async () => {
    await agent?.stop();
    await Promise.all(Object.values(replicas).map((replica) => replica?.stop()));
    await Promise.all([receiver?.close(), backend?.close(), redis?.stop()]);
    await database?.drop();
  });

  it("is one trace from A's request through B's agent job to A's settlement, and its receipt is co-signed", async () => {
    const a = replicas.a?.url ?? "";
    const registered = (await (await fetch(`${a}/v1/register`, { method: "POST" })).json()) as {
      api_token: string;
    };
    const token = registered.api_token;
    const credited = await fetch(`${a}/v1/admin/credits`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ api_token: token, amount_microunits: "5000000", reason: "test" }),
    });
    expect(credited.status).toBe(200);
    // A sees B's agent once B has announced it.
    let response: Response | undefined;
    for (let attempt = 0; attempt < 50 && response?.status !== 200; attempt += 1) {
      response = await fetch(`${a}/proxy/${token}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...marketOnly },
        body: JSON.stringify({
          model: "gpt-4o-mini",
          messages: [{ role: "user", content: "hi [fake:tokens=3]" }],
        }),
      });
      if (response.status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(response?.status).toBe(200);
    const body = (await response?.text()) ?? "";
    const requestId = response?.headers.get("x-request-id") ?? "";
    const receipt = await verifiedReceipt(a, response?.headers.get("x-pod-receipt") ?? "", {
      requestId,
      responseBody: body,
    });
    expect(receipt.source).toEqual({ route: "marketplace", provider_id: providerId });
    expect(receipt.host?.response_sha256).toBe(receipt.hashes.response_sha256);

    const inTrace = (spans: ReceivedSpan[]) => {
      const root = spans.find((span) => span.kind === 2 && span.attributes["pod.request_id"] === requestId);
      return root ? spans.filter((span) => span.traceId === root.traceId) : [];
    };
    const wanted = ["replica hop", "agent job", "settlement", "chat gpt-4o-mini", "routing", "hold"];
    const atAgent = (spans: ReceivedSpan[]) => spans.find((span) => span.service === "pod-agent-test");
    const spans = inTrace(
      await receiver.until(
        (all) =>
          wanted.every((name) => inTrace(all).some((span) => span.name === name)) &&
          atAgent(inTrace(all)) !== undefined,
        30_000,
      ),
    );
    const named = (name: string, service?: string) =>
      spans.find((span) => span.name === name && (service === undefined || span.service === service));
    expect(named("replica hop")?.service).toBe("gateway-a");
    expect(named("agent job")?.service).toBe("gateway-b");
    expect(named("agent job")?.parentSpanId).toBe(named("replica hop")?.spanId);
    expect(named("chat gpt-4o-mini", "gateway-a")?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-4o-mini",
    });
    // The agent's own span: a GenAI client span of the job at its backend, a child of B's
    // `agent job` span through the job frame's traceparent, with the backend's output count.
    const agentSpan = atAgent(spans);
    expect(agentSpan?.name).toBe("chat gpt-4o-mini");
    expect(agentSpan?.kind).toBe(3);
    expect(agentSpan?.parentSpanId).toBe(named("agent job")?.spanId);
    expect(agentSpan?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "llamacpp",
      "gen_ai.request.model": "gpt-4o-mini",
      "pod.job.outcome": "done",
      "http.response.status_code": 200,
      "gen_ai.usage.output_tokens": receipt.host?.output_tokens,
    });
    expect(receipt.host?.output_tokens).toBeGreaterThan(0);
    // Every span of the request hangs off another span of it (or is the root).
    const ids = new Set(spans.map((span) => span.spanId));
    const roots = spans.filter((span) => !ids.has(span.parentSpanId ?? ""));
    expect(roots.map((span) => span.kind)).toEqual([2]);
    expect(Number(named("settlement")?.attributes["gen_ai.usage.output_tokens"])).toBe(
      receipt.usage.output_tokens,
    );
    // One trace: no other trace holds a span of this request's job.
    const jobTraces = new Set(
      receiver.spans
        .filter((span) => span.name === "agent job" || span.name === "replica hop")
        .map((span) => span.traceId),
    );
    expect(jobTraces).toEqual(new Set([spans[0]?.traceId]));
  });
});
