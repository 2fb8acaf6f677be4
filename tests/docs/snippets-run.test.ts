import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDocPages } from "../../lib/docs/source";
import { startTestGateway, type TestGateway, testAdminToken } from "../helpers/gateway";
import { collectSnippets, targetsDocsSite } from "./extract-snippets";
import { describeRun, runSnippet } from "./run-snippet";

/**
 * Runs every runnable curl and SDK example of the docs against a real test gateway (fake
 * upstreams, its own database), so an example that stops working fails the suite. The harness
 * is imported, not looked for: a renamed or missing `tests/helpers/gateway.ts` fails this file
 * instead of switching it off. Examples that fetch the docs site itself run in tests/e2e against
 * `next start`.
 */

const x402QuoteEnv = { X402_PAY_TO: "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS", SOL_PRICE_USD: "150" };
/** Comfortably more than any example spends. */
const fundingMicrounits = 20_000_000n;

const apiSnippets = collectSnippets(loadDocPages()).filter(
  (snippet) => snippet.runnable && !targetsDocsSite(snippet),
);

describe("docs examples run against a test gateway", () => {
  let harness: TestGateway | undefined;

  beforeAll(async () => {
    // x402 quotes need a receiving wallet and a SOL price; no chain is touched to quote.
    harness = await startTestGateway({ env: x402QuoteEnv });
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  it("finds runnable examples in the docs (an extractor that finds none would run nothing)", () => {
    expect(apiSnippets.length).toBeGreaterThan(10);
  });

  // Each example gets its own funded token, so they can run side by side.
  it.concurrent.for(
    apiSnippets.map(
      (snippet) =>
        [`${snippet.slug} #${snippet.index} (${snippet.kind}, line ${snippet.line})`, snippet] as const,
    ),
  )("%s", { timeout: 90_000 }, async ([, snippet], context) => {
    if (harness === undefined) throw new Error("test gateway did not start");
    const run = await runSnippet(snippet, {
      POD_BASE_URL: harness.baseUrl.replace(/\/+$/, ""),
      POD_TOKEN: await harness.createFundedToken(fundingMicrounits),
      ADMIN_TOKEN: testAdminToken,
    });
    context.expect(run.problem, describeRun(snippet, run)).toBeUndefined();
  });
});
