import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type UsageRecord,
  usageRecordBatchSchema,
  usageRecordSchema,
} from "@pod-gateway/contracts/usage-record";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { loadDocPages } from "../../../lib/docs/source";
import { gatewayMetrics } from "../../../lib/metrics/gateway-metrics";
import { extractCodeBlocks } from "../../docs/extract-snippets";
import { freePort } from "../../helpers/free-port";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { type OtlpReceiver, startOtlpReceiver } from "../../helpers/otlp-receiver";
import { verifiedReceipt } from "../../helpers/receipts";
import { isSignedBy, startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

/**
 * Per-request usage records sent where the operator names, over real HTTP to local receivers:
 * a signed webhook batch and OTLP logs. And the receiver as an adversary: down or never
 * answering, it neither changes what callers get nor grows the gateway's memory without bound;
 * a gateway that stops gracefully sends what it holds first.
 */

const secret = "usage-records-secret-0123456789";
/** A prompt no record may carry unless content is asked for. */
const prompt = "the launch code is swordfish-4471";

let gateway: TestGateway | undefined;
const receivers: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function webhook(options: { hold?: boolean } = {}): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver("/usage", options);
  receivers.push(receiver);
  return receiver;
}

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const recordsIn = (receiver: WebhookReceiver): UsageRecord[] =>
  receiver.received.flatMap((hook) => usageRecordBatchSchema.parse(JSON.parse(hook.body)).records);

function client(token: string): OpenAI {
  return new OpenAI({ baseURL: `${gateway?.baseUrl}/proxy/${token}/v1`, apiKey: "pod", maxRetries: 0 });
}

async function ask(token: string, stream = false): Promise<{ requestId: string; receipt: string }> {
  if (stream) {
    const { response } = await client(token)
      .chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: prompt }],
        stream: true,
      })
      .withResponse();
    // Read to the end: a stream settles (and is recorded) when it ends.
    const text = await response.text();
    expect(text).toContain("[DONE]");
    return { requestId: response.headers.get("x-request-id") ?? "", receipt: "" };
  }
  const { data, response } = await client(token)
    .chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: prompt }] })
    .withResponse();
  expect(data.choices[0]?.message.content?.length).toBeGreaterThan(0);
  return {
    requestId: response.headers.get("x-request-id") ?? "",
    receipt: response.headers.get("x-pod-receipt") ?? "",
  };
}

/** A test gateway that sends its usage records to `url`, signed with the test's secret, and a funded token on it. */
async function recordingGateway(url: string, env: Record<string, string> = {}, funds = 5_000_000n) {
  gateway = await startTestGateway({
    env: {
      USAGE_RECORDS_WEBHOOK_URL: url,
      USAGE_RECORDS_WEBHOOK_SECRET: secret,
      USAGE_RECORDS_DELAY_MS: "0",
      ...env,
    },
  });
  return { running: gateway, token: await gateway.createFundedToken(funds) };
}

describe("usage records", () => {
  it("POSTs signed batches to the operator's webhook: counts, money, the receipt; no token, no prompt", async () => {
    const receiver = await webhook();
    const { running, token } = await recordingGateway(receiver.url, { USAGE_RECORDS_DELAY_MS: "50" });
    const before = await running.balanceOf(token);
    const whole = await ask(token);
    const streamed = await ask(token, true);
    await until(() => recordsIn(receiver).length >= 2, "two records");

    for (const hook of receiver.received) {
      expect(isSignedBy(hook, secret)).toBe(true);
      expect(isSignedBy(hook, "another-secret-0123456789")).toBe(false);
      expect(hook.body).not.toContain(token);
      expect(hook.body).not.toContain("swordfish");
    }
    const records = recordsIn(receiver);
    expect(records.map((record) => record.request_id).sort()).toEqual(
      [whole.requestId, streamed.requestId].sort(),
    );
    // What the records say was charged is what left the balance.
    const after = await running.balanceOf(token);
    const charged = records.reduce((sum, record) => sum + BigInt(record.charge_microunits), 0n);
    expect(charged).toBeGreaterThan(0n);
    expect(before.balance - after.balance).toBe(charged);
    const record = records.find((entry) => entry.request_id === whole.requestId);
    expect(record).toMatchObject({ route: "centralized", provider_id: "openai", outcome: "completed" });
    expect(record?.payer.kind).toBe("account");
    expect(record?.content).toBeUndefined();
    // The record carries the request's receipt, and it verifies against the published keys.
    expect(record?.receipt).toBe(whole.receipt);
    const receipt = await verifiedReceipt(running.baseUrl, record?.receipt ?? "");
    expect(receipt.charge).toBe(record?.charge_microunits);
    expect(receipt.usage.output_tokens).toBe(record?.usage.output_tokens);
  });

  it("records a response-cache hit too: route cache, nothing counted, the hit's price, its receipt", async () => {
    const receiver = await webhook();
    const { running, token } = await recordingGateway(receiver.url);
    const cached = () =>
      fetch(`${running.baseUrl}/proxy/${token}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-pod-cache": "on" },
        body: JSON.stringify({
          model: "gpt-4o-mini",
          temperature: 0,
          messages: [{ role: "user", content: prompt }],
        }),
      });
    await (await cached()).text();
    const hit = await cached();
    await hit.text();
    expect(hit.headers.get("x-pod-cache")).toBe("hit");
    const requestId = hit.headers.get("x-request-id") ?? "";
    await until(
      () => recordsIn(receiver).some((record) => record.request_id === requestId),
      "the hit's record",
    );
    const record = recordsIn(receiver).find((entry) => entry.request_id === requestId);
    expect(record).toMatchObject({ route: "cache", provider_id: "openai", host_share_microunits: "0" });
    expect(record?.usage).toMatchObject({ counted_by: "cache_hit", input_tokens: 0, output_tokens: 0 });
    expect(record?.charge_microunits).toBe(hit.headers.get("x-pod-cost-microunits"));
    expect(record?.receipt).toBe(hit.headers.get("x-pod-receipt"));
  });

  it("carries the request and the answer only when USAGE_RECORDS_CONTENT=on", async () => {
    const receiver = await webhook();
    const { token } = await recordingGateway(receiver.url, { USAGE_RECORDS_CONTENT: "on" });
    await ask(token);
    await until(() => recordsIn(receiver).length === 1, "a record");
    const [record] = recordsIn(receiver);
    expect(record?.content?.request).toContain(prompt);
    expect(record?.content?.response.length).toBeGreaterThan(0);
    expect(receiver.received[0]?.body).not.toContain(token);
  });

  it("sends OTLP log records, linked to the request's trace, with the collector's headers", async () => {
    const otlp: OtlpReceiver = await startOtlpReceiver();
    receivers.push(otlp);
    gateway = await startTestGateway({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_LOGS_EXPORTER: "otlp",
        OTEL_EXPORTER_OTLP_LOGS_HEADERS: "x-collector-key=abc%20123",
        OTEL_SERVICE_NAME: "records-test",
        USAGE_RECORDS_DELAY_MS: "0",
      },
    });
    const token = await gateway.createFundedToken(5_000_000n);
    const { requestId } = await ask(token);
    await until(() => otlp.logs.length === 1, "an OTLP log record");
    const [log] = otlp.logs;
    expect(log?.headers["x-collector-key"]).toBe("abc 123");
    expect(log?.service).toBe("records-test");
    const record = usageRecordSchema.parse(JSON.parse(log?.body ?? ""));
    expect(record.request_id).toBe(requestId);
    expect(log?.attributes).toMatchObject({
      "event.name": "pod.usage_record",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.usage.output_tokens": record.usage.output_tokens,
      "pod.charged_microunits": record.charge_microunits,
    });
    expect(log?.body).not.toContain("swordfish");
    // The log names the settlement span of the request's trace.
    await otlp.until((spans) => spans.some((span) => span.spanId === log?.spanId));
    const settlement = otlp.spans.find((span) => span.spanId === log?.spanId);
    expect(settlement?.name).toBe("settlement");
    expect(settlement?.traceId).toBe(log?.traceId);
    expect(record.traceparent?.split("-")[1]).toBe(log?.traceId);
  });

  it("keeps answering and stays bounded while the receiver never answers, then delivers what it kept", async () => {
    const receiver = await webhook({ hold: true });
    const { running, token } = await recordingGateway(
      receiver.url,
      { USAGE_RECORDS_QUEUE_MAX: "4", USAGE_RECORDS_BATCH_MAX: "2", USAGE_RECORDS_TIMEOUT_MS: "60000" },
      50_000_000n,
    );
    const records = running.app.usageRecords;
    const dropped = () =>
      gatewayMetrics.usageRecordsDropped.value({ destination: "webhook", reason: "queue_full" });
    const droppedBefore = dropped();
    const first = await ask(token);
    // The first batch is on its way and held by the receiver: nothing more goes until it is answered.
    await until(() => receiver.arrivals === 1, "the first POST to arrive");
    const requestIds = [first.requestId];
    for (let index = 0; index < 9; index += 1) {
      const answer = await ask(token, index % 2 === 1);
      expect(answer.requestId).toMatch(/^req_/);
      requestIds.push(answer.requestId);
      expect(records?.queued).toBeLessThanOrEqual(4);
    }
    // Ten records, room for four: six dropped and counted, none sent yet.
    await until(() => dropped() - droppedBefore === 6, "six records dropped");
    expect(records?.queued).toBe(4);
    expect(receiver.arrivals).toBe(1);
    receiver.release();
    await until(() => recordsIn(receiver).length === 4, "the four kept records");
    // The receiver holds a record before its 2xx reaches the sender, which only then lets it go.
    await until(() => records?.queued === 0, "the queue emptied once the sends were answered");
    // The ones kept are the first four: a backlog is sent as it queued, the overflow dropped.
    expect(new Set(recordsIn(receiver).map((record) => record.request_id))).toEqual(
      new Set(requestIds.slice(0, 4)),
    );
  });

  it("retries with backoff while the receiver is down, and delivers once it is up", async () => {
    const port = await freePort();
    const { running, token } = await recordingGateway(`http://127.0.0.1:${port}/usage`);
    const failures = () => gatewayMetrics.usageRecordSendFailures.value({ destination: "webhook" });
    const failuresBefore = failures();
    const { requestId } = await ask(token);
    // Nothing listens: the send is refused, waited on and tried again; the record waits.
    await until(() => failures() - failuresBefore >= 2, "two failed sends");
    expect(running.app.usageRecords?.queued).toBe(1);
    const receiver = await startWebhookReceiver("/usage", { port });
    receivers.push(receiver);
    await until(() => recordsIn(receiver).length === 1, "the retried record", 20_000);
    expect(recordsIn(receiver)[0]?.request_id).toBe(requestId);
    // Dequeued when the 2xx arrives, a moment after the receiver has the body.
    await until(() => running.app.usageRecords?.queued === 0, "the queue emptied once answered");
    expect(recordsIn(receiver)).toHaveLength(1);
  });

  it("sends what it holds when the gateway stops gracefully", async () => {
    const receiver = await webhook();
    // Nothing goes on its own within the test: only the stop sends them.
    const { running, token } = await recordingGateway(receiver.url, { USAGE_RECORDS_DELAY_MS: "600000" });
    const asked = [await ask(token), await ask(token, true), await ask(token)];
    await until(() => running.app.usageRecords?.queued === 3, "three records queued");
    expect(receiver.arrivals).toBe(0);
    await running.close();
    gateway = undefined;
    expect(
      recordsIn(receiver)
        .map((record) => record.request_id)
        .sort(),
    ).toEqual(asked.map((answer) => answer.requestId).sort());
  });

  it("runs the docs' receiver: it prints each record once and refuses forged and stale batches", async () => {
    const page = loadDocPages().find((entry) => entry.slug === "resources/usage-records");
    const code = extractCodeBlocks(page?.body ?? "").find((block) =>
      block.meta.includes("usage-receiver.mjs"),
    );
    expect(code).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), "usage-receiver-"));
    const file = join(dir, "usage-receiver.mjs");
    writeFileSync(file, code?.code ?? "");
    const port = await freePort();
    const child = spawn(process.execPath, [file], {
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "test",
        PORT: String(port),
        USAGE_RECORDS_WEBHOOK_SECRET: secret,
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    receivers.push({
      close: () =>
        new Promise<void>((resolve) => {
          child.once("exit", () => {
            rmSync(dir, { recursive: true, force: true });
            resolve();
          });
          child.kill();
        }),
    });
    let printed = "";
    child.stdout.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    const url = `http://127.0.0.1:${port}/usage`;
    const post = async (body: string, signature: string) =>
      (
        await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "pod-signature": signature },
          body,
        }).catch(() => undefined)
      )?.status;
    const sign = (body: string, key: string, at = Math.floor(Date.now() / 1000)) =>
      `t=${at},v1=${createHmac("sha256", key).update(`${at}.${body}`).digest("hex")}`;
    // Listening once it answers (an unsigned POST is refused).
    const deadline = Date.now() + 15_000;
    while ((await post("{}", "")) !== 401) {
      if (Date.now() > deadline) throw new Error("the docs' receiver did not start");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const { token } = await recordingGateway(url);
    const { requestId } = await ask(token);
    await until(() => printed.includes(requestId), "the receiver to print the record");
    expect(printed).toMatch(new RegExp(`${requestId} gpt-4o-mini in=\\d+ out=\\d+ charged=\\d+`));

    // An attacker's batch: signed with another secret, or a real batch replayed after five minutes.
    const forged = JSON.stringify({
      type: "usage.records",
      sent_at: new Date().toISOString(),
      records: [{ request_id: "req_forged", model: "x", usage: { input_tokens: 1, output_tokens: 1 } }],
    });
    expect(await post(forged, sign(forged, "not-the-secret-0123456789"))).toBe(401);
    expect(await post(forged, sign(forged, secret, Math.floor(Date.now() / 1000) - 600))).toBe(401);
    expect(await post(forged, `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}`)).toBe(401);
    // The same batch twice (a retried POST) prints its records once.
    expect(await post(forged, sign(forged, secret))).toBe(204);
    expect(await post(forged, sign(forged, secret))).toBe(204);
    await until(() => printed.includes("req_forged"), "the signed batch");
    expect(printed.match(/req_forged/g)).toHaveLength(1);
  });
});
