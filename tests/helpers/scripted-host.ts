import type { TestGateway } from "./gateway";
import type { MarketplaceFixture, TestHost } from "./marketplace-fixture";
import * as scripted from "./scripted-agent";

export interface ScriptedOffer {
  /** An already enrolled host; a new active one when absent. */
  host?: TestHost;
  model?: string;
  input?: number;
  output?: number;
  maxConcurrent?: number;
}

/** A host with a scripted agent connected and offering one model (gpt-4o at 2 / 10 USDC per 1M tokens by default). */
export async function scriptedHost(
  gateway: TestGateway,
  market: MarketplaceFixture,
  offer: ScriptedOffer = {},
): Promise<{ host: TestHost; agent: scripted.ScriptedAgent }> {
  const host = offer.host ?? (await market.enroll());
  const profile = (await (await host.call("GET", "/v1/host/profile")).json()) as {
    metadata: { enrollment_code: string };
  };
  const agent = await scripted.connectScriptedAgent(gateway.baseUrl, {
    key: scripted.newAgentKey(),
    enrollmentCode: profile.metadata.enrollment_code,
  });
  await agent.next("auth_ok");
  agent.send({
    type: "capabilities",
    models: [
      {
        model_id: offer.model ?? "gpt-4o",
        input_per_1m: offer.input ?? 2_000_000,
        output_per_1m: offer.output ?? 10_000_000,
        max_concurrent: offer.maxConcurrent ?? 1,
      },
    ],
  });
  await agent.next("capabilities_ack");
  agent.send({ type: "heartbeat" });
  return { host, agent };
}

/**
 * One streamed job of 1000 prompt and 200 output tokens, answered honestly by `agent` (the
 * counts it reports are what the gateway counts): 1000 × 2 + 200 × 10 = 4000 microunits charged,
 * 3200 credited to the host.
 */
export async function serveHonestJob(
  gateway: TestGateway,
  agent: scripted.ScriptedAgent,
  token: string,
): Promise<void> {
  const pending = fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-Pod-Routing-Mode": "marketplace-only" },
    body: JSON.stringify({
      model: "gpt-4o",
      stream: true,
      messages: [{ role: "user", content: scripted.textOfTokens(1000, "hi") }],
    }),
  });
  const job = await agent.next("job");
  agent.send({
    type: "job_chunk",
    job_id: job.job_id,
    data: scripted.b64(
      `${scripted.openAiDelta(scripted.textOfTokens(200))}${scripted.openAiUsage(1000, 200)}data: [DONE]\n\n`,
    ),
  });
  agent.send({ type: "job_done", job_id: job.job_id });
  await (await pending).text();
}

/** `POST /v1/host/withdraw` as `host`, with the idempotency key `key`. */
export function withdrawAs(
  gateway: TestGateway,
  host: TestHost,
  amount: string,
  key: string,
  destination?: string,
): Promise<Response> {
  return fetch(`${gateway.baseUrl}/v1/host/withdraw`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${host.hostToken}`,
      "content-type": "application/json",
      "idempotency-key": key,
    },
    body: JSON.stringify({ amount_usdc: amount, ...(destination ? { destination } : {}) }),
  });
}
