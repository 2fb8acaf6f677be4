import { afterAll, afterEach, beforeAll } from "vitest";
import type { RunningAgent } from "./agent-process";
import { startTestGateway, type TestGateway } from "./gateway";
import { createMarketplaceFixture, type MarketplaceFixture } from "./marketplace-fixture";

export interface AgentMarket {
  gateway: TestGateway;
  market: MarketplaceFixture;
}

/**
 * A file's test gateway and marketplace fixture for agent processes: started once before the
 * file's tests (then `prepare`d, e.g. fakes told how to answer), handed to `started`; after each
 * test its agent processes (pushed to `processes`) are stopped and its hosts removed.
 */
export function withAgentMarket(options: {
  env: Record<string, string>;
  processes: RunningAgent[];
  started: (market: AgentMarket) => void;
  prepare?: (gateway: TestGateway) => void;
}): void {
  let running: AgentMarket | undefined;
  beforeAll(async () => {
    const gateway = await startTestGateway({ env: options.env });
    options.prepare?.(gateway);
    running = { gateway, market: createMarketplaceFixture(gateway) };
    options.started(running);
  });
  afterEach(async () => {
    for (const agent of options.processes.splice(0)) await agent.stop();
    await running?.market.cleanup();
  });
  afterAll(async () => {
    await running?.gateway.close();
  });
}
