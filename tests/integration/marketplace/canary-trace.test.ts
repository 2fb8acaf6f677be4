import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningAgent } from "../../helpers/agent-process";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { connectHostileHost } from "../../helpers/hostile-host";
import { createMarketplaceFixture, type MarketplaceFixture } from "../../helpers/marketplace-fixture";
import { type OtlpReceiver, startOtlpReceiver } from "../../helpers/otlp-receiver";

/**
 * With tracing on, every job frame carries a `traceparent`. A canary set going by a real job must
 * not carry that job's trace (an agent would see the same trace id twice, the second time on a
 * canary): it runs in a trace of its own, as a new caller's request does.
 */
let otlp: OtlpReceiver;
let gateway: TestGateway;
let market: MarketplaceFixture;
const processes: RunningAgent[] = [];

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  gateway = await startTestGateway({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      CANARY_SHARE: "1",
      CANARY_MAX_DELAY_MS: "0",
      VERIFY_SHARE: "0",
      PROVIDER_HEARTBEAT_TIMEOUT_MS: "5000",
    },
  });
  market = createMarketplaceFixture(gateway);
});
afterAll(async () => {
  for (const agent of processes.splice(0)) await agent.stop();
  await market?.cleanup();
  await gateway?.close();
  await otlp?.close();
});

const traceId = (traceparent: string | undefined) => traceparent?.split("-")[1];

describe("a canary's trace", () => {
  it("is a new trace, not the trace of the job it follows", async () => {
    await connectHostileHost(gateway, market, processes, "model-honest");
    const [agent] = processes;
    if (!agent) throw new Error("agent expected");
    const token = await gateway.createFundedToken(5_000_000n);
    const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "X-Pod-Routing-Mode": "marketplace-only",
        traceparent: `00-${callerTrace}-00f067aa0ba902b7-01`,
      },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        max_tokens: 900,
        temperature: 0.7,
        messages: [{ role: "user", content: "What should I know about tides?" }],
      }),
    });
    expect(response.status).toBe(200);
    await response.text();
    const frames = () =>
      agent
        .output()
        .split("\n")
        .filter((line) => line.startsWith("frame "))
        .map(
          (line) => (JSON.parse(line.slice("frame ".length)) as { frame: { traceparent?: string } }).frame,
        );
    await expect.poll(() => frames().length, { timeout: 20_000 }).toBe(2);
    const [real, canary] = frames();
    expect(traceId(real?.traceparent)).toBe(callerTrace);
    expect(canary?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(traceId(canary?.traceparent)).not.toBe(callerTrace);
  });
});
