import { createHttpAgentTransport } from "../../lib/marketplace/http-agent-transport";
import type { AgentConnectionHandle } from "../../lib/marketplace/in-memory-registry";
import { type FakeUpstream, startFakeUpstream } from "./fake-upstream";
import { type TestGateway, testAdminToken } from "./gateway";

export interface TestHost {
  providerId: string;
  hostToken: string;
  /** Calls a `/v1/host/...` endpoint with this host's token. */
  call(method: string, path: string, body?: unknown): Promise<Response>;
}

export interface RelayListingInput {
  model: string;
  input: number;
  output: number;
  dailyCapUsdc?: string;
  upstreamModelId?: string;
}

export interface AgentOfferInput {
  model: string;
  input: number;
  output: number;
  maxConcurrent?: number;
}

export interface TestAgent {
  host: TestHost;
  /** The agent's local backend: a fake named `fake-agent-<n>` (fail it with `[fake:fail=…]`). */
  backend: FakeUpstream;
  backendName: string;
  connection: AgentConnectionHandle;
}

/**
 * Supply for routing tests, created through the public host API like a real operator:
 * enrol, activate (admin), add relay keys and listings, or connect a marketplace agent
 * double that forwards jobs to a fake backend. `cleanup` suspends every host and
 * disconnects every agent so the next test starts from centralized-only supply.
 */
export function createMarketplaceFixture(gateway: TestGateway) {
  const hosts: TestHost[] = [];
  const agents: TestAgent[] = [];
  let agentCount = 0;

  const adminPost = async (path: string) => {
    const response = await fetch(`${gateway.baseUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${testAdminToken}` },
    });
    if (!response.ok) throw new Error(`${path} failed: ${response.status} ${await response.text()}`);
  };

  async function enroll(options: { activate?: boolean; name?: string } = {}): Promise<TestHost> {
    const response = await fetch(`${gateway.baseUrl}/v1/host/enroll`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        display_name: options.name ?? `host ${hosts.length + 1}`,
        wallet: "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS",
      }),
    });
    if (response.status !== 201)
      throw new Error(`enroll failed: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { provider_id: string; host_token: string };
    const host: TestHost = {
      providerId: body.provider_id,
      hostToken: body.host_token,
      call: (method, path, payload) =>
        fetch(`${gateway.baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${body.host_token}`, "content-type": "application/json" },
          ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
        }),
    };
    hosts.push(host);
    if (options.activate !== false) await adminPost(`/v1/admin/hosts/${host.providerId}/activate`);
    return host;
  }

  /** A host reselling one upstream key with listings on it. */
  async function relay(input: {
    upstream: string;
    apiKey?: string;
    listings: RelayListingInput[];
    host?: TestHost;
    activate?: boolean;
  }): Promise<TestHost & { relayKeyId: string; apiKey: string }> {
    const host = input.host ?? (await enroll({ activate: input.activate ?? true }));
    const apiKey = input.apiKey ?? `sk-relay-${host.providerId.slice(0, 8)}`;
    const added = await host.call("POST", "/v1/host/relay-keys", {
      upstream: input.upstream,
      api_key: apiKey,
    });
    if (added.status !== 201) throw new Error(`relay key failed: ${added.status} ${await added.text()}`);
    const { id: relayKeyId } = (await added.json()) as { id: string };
    for (const listing of input.listings) {
      const put = await host.call("PUT", "/v1/host/listings", {
        model: listing.model,
        relay_key_id: relayKeyId,
        input_per_1m: listing.input,
        output_per_1m: listing.output,
        ...(listing.dailyCapUsdc === undefined ? {} : { daily_cap_usdc: listing.dailyCapUsdc }),
        ...(listing.upstreamModelId === undefined ? {} : { upstream_model_id: listing.upstreamModelId }),
      });
      if (!put.ok) throw new Error(`listing failed: ${put.status} ${await put.text()}`);
    }
    return { ...host, relayKeyId, apiKey };
  }

  /** A connected marketplace agent whose backend is a fresh fake of the given dialect. */
  async function agent(input: {
    offers: AgentOfferInput[];
    dialect?: "openai" | "anthropic";
    delayMs?: number;
    maxConcurrentTotal?: number;
    tokensPerSecond?: number;
    host?: TestHost;
    /** `other`: the backend is a different "model" that answers with other words. */
    voice?: "other" | "model" | "smaller";
  }): Promise<TestAgent> {
    const host = input.host ?? (await enroll());
    agentCount += 1;
    const dialect = input.dialect ?? "openai";
    const backendName = `fake-agent-${agentCount}`;
    const backend = await startFakeUpstream(dialect, backendName, input.voice ? { voice: input.voice } : {});
    const connection = gateway.marketplace.connect({
      providerId: host.providerId,
      offers: input.offers.map((offer) => ({
        modelId: offer.model,
        dialect,
        inputPer1m: BigInt(offer.input),
        outputPer1m: BigInt(offer.output),
        maxConcurrent: offer.maxConcurrent ?? 4,
      })),
      ...(input.maxConcurrentTotal === undefined ? {} : { maxConcurrentTotal: input.maxConcurrentTotal }),
      ...(input.tokensPerSecond === undefined ? {} : { tokensPerSecond: input.tokensPerSecond }),
      transport: createHttpAgentTransport({
        baseUrl: backend.baseUrl,
        ...(input.delayMs === undefined ? {} : { delayMs: input.delayMs }),
      }),
    });
    const created = { host, backend, backendName, connection };
    agents.push(created);
    return created;
  }

  async function cleanup(): Promise<void> {
    for (const created of agents.splice(0)) {
      created.connection.disconnect();
      await created.backend.close();
    }
    for (const host of hosts.splice(0)) await adminPost(`/v1/admin/hosts/${host.providerId}/suspend`);
  }

  return { enroll, relay, agent, cleanup, adminPost };
}

export type MarketplaceFixture = ReturnType<typeof createMarketplaceFixture>;
