import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { loadDocPages } from "../../lib/docs/source";
import { collectSnippets, targetsDocsSite } from "./extract-snippets";
import { describeRun, runSnippet } from "./run-snippet";

/**
 * Runs every runnable curl and SDK example of the docs against a real test gateway (fake
 * upstreams, its own database), so an example that stops working fails the suite. It turns
 * itself on once the shared harness `tests/helpers/gateway.ts` exists. Examples that fetch the
 * docs site itself run in tests/e2e against `next start`.
 */

const harnessPath = path.resolve(import.meta.dirname, "../helpers/gateway.ts");
const hasHarness = existsSync(harnessPath);
const x402QuoteEnv = { X402_PAY_TO: "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS", SOL_PRICE_USD: "150" };
/** Comfortably more than any example spends. */
const fundingMicrounits = 20_000_000n;

interface Harness {
  baseUrl: string;
  createFundedToken(amountMicrounits: bigint): Promise<string>;
  close(): Promise<void>;
}

interface HarnessModule {
  startTestGateway(options?: { env?: Record<string, string> }): Promise<Harness>;
  testAdminToken?: string;
}

const apiSnippets = collectSnippets(loadDocPages()).filter(
  (snippet) => snippet.runnable && !targetsDocsSite(snippet),
);

describe.skipIf(!hasHarness)("docs examples run against a test gateway", () => {
  let harness: Harness | undefined;
  let adminToken: string | undefined;

  beforeAll(async () => {
    const module = (await import(/* @vite-ignore */ harnessPath)) as HarnessModule;
    // x402 quotes need a receiving wallet and a SOL price; no chain is touched to quote.
    harness = await module.startTestGateway({ env: x402QuoteEnv });
    adminToken = module.testAdminToken;
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  // Each example gets its own funded token, so they can run side by side.
  it.concurrent.for(
    apiSnippets.map(
      (snippet) =>
        [`${snippet.slug} #${snippet.index} (${snippet.kind}, line ${snippet.line})`, snippet] as const,
    ),
  )("%s", { timeout: 90_000 }, async ([, snippet], context) => {
    if (harness === undefined) throw new Error("test gateway did not start");
    if (snippet.placeholders.includes("ADMIN_TOKEN") && adminToken === undefined) {
      context.skip("the harness exposes no admin token");
      return;
    }
    const run = await runSnippet(snippet, {
      POD_BASE_URL: harness.baseUrl.replace(/\/+$/, ""),
      POD_TOKEN: await harness.createFundedToken(fundingMicrounits),
      ...(adminToken === undefined ? {} : { ADMIN_TOKEN: adminToken }),
    });
    context.expect(run.problem, describeRun(snippet, run)).toBeUndefined();
  });
});
