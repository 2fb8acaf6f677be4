import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../../helpers/otlp-receiver";

/**
 * Traces as an operator collects them: the gateway exports by OTLP/HTTP to the endpoint the
 * standard OTEL_* variables name (a local receiver here), one trace per request, and the
 * upstream is sent the trace's `traceparent`.
 */

let receiver: OtlpReceiver;
let gateway: TestGateway;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  gateway = await startTestGateway({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "pod-gateway-test" },
  });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await receiver?.close();
});

function traces(spans: ReceivedSpan[]): Map<string, ReceivedSpan[]> {
  const byTrace = new Map<string, ReceivedSpan[]>();
  for (const span of spans) byTrace.set(span.traceId, [...(byTrace.get(span.traceId) ?? []), span]);
  return byTrace;
}

const rootOf = (spans: ReceivedSpan[]) => spans.find((span) => span.kind === 2);

describe("OpenTelemetry traces", () => {
  it("exports one trace per request with routing, hold, dispatch and settlement, and sends traceparent upstream", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    const client = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const before = gateway.openai.requests.length;
    await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "one" }],
    });
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "two" }],
      stream: true,
    });
    for await (const _chunk of stream) {
      // read to the end: the stream's settlement is part of its trace
    }
    const wanted = ["routing", "hold", "chat gpt-4o-mini", "settlement"];
    const inference = (spans: ReceivedSpan[]) =>
      [...traces(spans).values()].filter((trace) => rootOf(trace)?.name.includes("/v1/chat/completions"));
    const spans = await receiver.until(
      (all) =>
        inference(all).length === 2 &&
        inference(all).every((trace) => wanted.every((name) => trace.some((span) => span.name === name))),
    );
    const requestTraces = inference(spans);
    expect(requestTraces).toHaveLength(2);
    for (const trace of requestTraces) {
      const root = rootOf(trace);
      expect(root?.service).toBe("pod-gateway-test");
      expect(root?.attributes["http.response.status_code"]).toBe(200);
      // Every span of the trace hangs off its root.
      const ids = new Set(trace.map((span) => span.spanId));
      for (const span of trace) if (span !== root) expect(ids.has(span.parentSpanId ?? "")).toBe(true);
      const dispatch = trace.find((span) => span.name === "chat gpt-4o-mini");
      expect(dispatch?.kind).toBe(3);
      expect(dispatch?.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o-mini",
      });
      const settlement = trace.find((span) => span.name === "settlement");
      expect(Number(settlement?.attributes["gen_ai.usage.output_tokens"])).toBeGreaterThan(0);
      expect(Number(settlement?.attributes["gen_ai.usage.input_tokens"])).toBeGreaterThan(0);
    }
    // The upstream saw each trace's context: its trace id is one of ours.
    const sent = gateway.openai.requests.slice(before).map((request) => String(request.headers.traceparent));
    expect(sent).toHaveLength(2);
    const traceIds = new Set(requestTraces.map((trace) => trace[0]?.traceId));
    for (const traceparent of sent) expect(traceIds.has(traceparent.split("-")[1] ?? "")).toBe(true);
  });

  it("continues a caller's trace when it sends a traceparent", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "three" }] }),
    });
    expect(response.status).toBe(200);
    const spans = await receiver.until((all) =>
      all.some((span) => span.traceId === traceId && span.kind === 2),
    );
    expect(spans.find((span) => span.traceId === traceId && span.kind === 2)?.parentSpanId).toBe(
      "00f067aa0ba902b7",
    );
  });
});
