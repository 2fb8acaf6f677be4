import { eq, sql } from "drizzle-orm";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatUsd, formatUtc } from "../../components/dashboard/format";
import { signOperatorSession } from "../../lib/dashboard/operator-session";
import { accounts, catalogChanges, hosts, operatorActions } from "../../lib/db/schema";
import { ensureAccount, systemAccounts } from "../../lib/ledger/accounts";
import { postTransaction } from "../../lib/ledger/post-transaction";
import { AgentAbsence } from "../../lib/operator-console/agent-absence";
import { readConsoleUpstreamExcess } from "../../lib/operator-console/console-reads";
import { type NoticeState, runOperatorNotices } from "../../lib/operator-console/operator-notices";
import { refreshReputations } from "../../lib/trust/reputation";
import { recordTrustEvents } from "../../lib/trust/trust-events";
import { startTestGateway, type TestGateway, testAdminToken } from "../helpers/gateway";
import { inferenceClient } from "../helpers/inference-client";
import {
  createMarketplaceFixture,
  type MarketplaceFixture,
  type TestHost,
} from "../helpers/marketplace-fixture";
import type { ScriptedAgent } from "../helpers/scripted-agent";
import { scriptedHost, serveHonestJob, withdrawAs } from "../helpers/scripted-host";
import {
  desktop,
  hasChromium,
  launchChromium,
  openDevice,
  phone,
  shoot,
  type WatchedPage,
} from "./dashboard-browser";
import { ensureBuild } from "./next-server";
import { axeViolations, horizontalOverflow } from "./page-checks";

/**
 * The operator console in a real Chromium against a real gateway: sign in with the admin token;
 * edit a price and see the next request charged at it and the change logged under the operator's
 * name; open an excluded host and read its evidence; slash it and see the refund reach the caller
 * it served; approve a payout held for review; read a reconcile report with a planted difference
 * explained. A person's session, a host's token and a forged cookie open no page and run no
 * action. Every console page at 360 px and on a desktop, light and dark: nothing wider than the
 * screen and axe-core clean.
 */

if (!hasChromium)
  console.warn("operator console e2e skipped: /usr/bin/chromium is missing (apt-get install -y chromium)");

const consolePages = ["", "/catalog", "/hosts", "/payouts", "/money", "/credits"];
const excludedName = "Sneaky GPU box";
const honestName = "Honest box";

describe.skipIf(!hasChromium)("operator console in Chromium", () => {
  let gateway: TestGateway;
  let market: MarketplaceFixture;
  let browser: Browser;
  const agents: ScriptedAgent[] = [];
  let excluded: TestHost;
  let honest: TestHost;
  let caller = "";
  let payoutId = "";

  const db = () => gateway.app.database.db;

  beforeAll(async () => {
    ensureBuild();
    gateway = await startTestGateway({
      withNext: true,
      env: {
        HOST_EARNINGS_MATURITY_SECONDS: "1",
        HOST_WITHDRAW_MIN_MICROUNITS: "1000",
        HOST_WITHDRAW_REVIEW_MICROUNITS: "1000",
        // No canary at random: the money page's verification figures are the test's own.
        CANARY_SHARE: "0",
      },
    });
    market = createMarketplaceFixture(gateway);
    browser = await launchChromium();

    // A host whose record has five over-claims (excluded), that served `caller` one job and holds a bond.
    const sneaky = await scriptedHost(gateway, market, { host: await market.enroll({ name: excludedName }) });
    agents.push(sneaky.agent);
    excluded = sneaky.host;
    caller = await gateway.createFundedToken(100_000_000n);
    await serveHonestJob(gateway, sneaky.agent, caller);
    await recordTrustEvents(
      db(),
      excluded.providerId,
      Array.from({ length: 5 }, (_, index) => ({
        kind: "over_claim" as const,
        requestId: `req_planted_${index}`,
        detail: "claimed 900 output tokens where 200 were counted",
        evidence: { claimed_output_tokens: 900, counted_output_tokens: 200, job: index },
      })),
    );
    // Routing reads standing on its upkeep pass: read it now, so the next job avoids the excluded host.
    await refreshReputations(gateway.app.routing.reputation, db());
    const bond = await ensureAccount(db(), "bond", excluded.providerId);
    const deposits = await ensureAccount(db(), "external", "test-bond-deposits");
    await db().transaction((tx) =>
      postTransaction(tx, {
        kind: "bond_deposit",
        entries: [
          { accountId: deposits, amount: -50_000_000n },
          { accountId: bond, amount: 50_000_000n },
        ],
      }),
    );
    // A second, honest host whose withdrawal waits for approval (it is young and above the threshold).
    const second = await scriptedHost(gateway, market, { host: await market.enroll({ name: honestName }) });
    agents.push(second.agent);
    honest = second.host;
    await serveHonestJob(gateway, second.agent, await gateway.createFundedToken(100_000_000n));
    await new Promise((resolve) => setTimeout(resolve, 1300));
    const withdrawal = await withdrawAs(gateway, honest, "0.0032", "console-e2e");
    expect(withdrawal.status).toBe(202);
    payoutId = ((await withdrawal.json()) as { id: string }).id;
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    for (const agent of agents) agent.close();
    await gateway?.close();
  });

  async function device(options: { width?: number; dark?: boolean } = {}): Promise<WatchedPage> {
    return openDevice(browser, gateway.baseUrl, options);
  }

  async function signIn(page: Page, name = "Ada"): Promise<void> {
    await page.goto(`${gateway.baseUrl}/dashboard/admin`);
    await page.getByLabel("Your name (every action is logged under it)").fill(name);
    await page.getByLabel("Admin token").fill(testAdminToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Needs you" }).waitFor();
  }

  async function closeClean(watched: WatchedPage): Promise<void> {
    expect(watched.errors, watched.errors.join("\n")).toEqual([]);
    await watched.context.close();
  }

  it("refuses every console page and action to a person's session, a host's token and a forged cookie", async () => {
    const registered = (await (await fetch(`${gateway.baseUrl}/v1/register`, { method: "POST" })).json()) as {
      api_token: string;
    };
    const session = await fetch(`${gateway.baseUrl}/dashboard/session`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: gateway.baseUrl },
      body: JSON.stringify({ api_token: registered.api_token }),
    });
    expect(session.status).toBe(200);
    const forged = signOperatorSession("not-the-admin-token", "Mallory", new Date());
    const outsiders: Record<string, Record<string, string>> = {
      person: { cookie: `pod_dashboard=${registered.api_token}` },
      host: { authorization: `Bearer ${excluded.hostToken}` },
      "person naming itself an operator": {
        cookie: `pod_dashboard=${registered.api_token}`,
        "x-pod-operator": "Mallory",
      },
      "forged operator cookie": { cookie: `pod_operator=${forged}` },
      "no one": {},
    };
    const actions: [string, string, unknown][] = [
      ["POST", `hosts/${excluded.providerId}/suspend`, {}],
      ["POST", `hosts/${excluded.providerId}/activate`, {}],
      ["POST", `hosts/${excluded.providerId}/slash`, { reason: "x" }],
      ["POST", `payouts/${payoutId}/approve`, {}],
      ["POST", "credits", { api_token: registered.api_token, amount_microunits: 1_000_000, reason: "x" }],
      ["PUT", "catalog/models/gpt-4o-mini", { disabled: true }],
      ["PUT", "catalog/models/gpt-4o-mini/prices/openai", { input_per_1m: 0, output_per_1m: 0 }],
      ["POST", "catalog/refresh", {}],
    ];
    for (const [who, headers] of Object.entries(outsiders)) {
      for (const path of [...consolePages, `/hosts/${excluded.providerId}`]) {
        const response = await fetch(`${gateway.baseUrl}/dashboard/admin${path}`, { headers });
        const html = await response.text();
        expect(html, `${who} on ${path}`).toContain("Operator sign-in");
        expect(html, `${who} on ${path}`).not.toContain(excludedName);
        expect(html, `${who} on ${path}`).not.toContain("Needs you");
      }
      for (const [method, path, body] of actions) {
        const response = await fetch(`${gateway.baseUrl}/dashboard/admin/act/${path}`, {
          method,
          headers: { ...headers, "content-type": "application/json", origin: gateway.baseUrl },
          body: JSON.stringify(body),
        });
        expect(response.status, `${who}: ${method} ${path}`).toBe(401);
      }
    }
    // The admin API itself takes neither a token nor a host's credential.
    for (const credential of [registered.api_token, excluded.hostToken]) {
      const response = await fetch(`${gateway.baseUrl}/v1/admin/hosts/${excluded.providerId}/suspend`, {
        method: "POST",
        headers: { authorization: `Bearer ${credential}` },
      });
      expect(response.status).toBe(401);
    }
    // A wrong admin token signs no one in.
    const wrong = await fetch(`${gateway.baseUrl}/dashboard/admin/session`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: gateway.baseUrl },
      body: JSON.stringify({ admin_token: `${testAdminToken}x`, operator: "Mallory" }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    // A real operator session does not act for another site's page, nor under another name.
    const real = `pod_operator=${signOperatorSession(testAdminToken, "Ada", new Date())}`;
    const crossSite = await fetch(
      `${gateway.baseUrl}/dashboard/admin/act/hosts/${excluded.providerId}/suspend`,
      {
        method: "POST",
        headers: { cookie: real, "content-type": "application/json", origin: "http://evil.example" },
        body: "{}",
      },
    );
    expect(crossSite.status).toBe(403);
    const renamed = await fetch(`${gateway.baseUrl}/dashboard/admin/act/catalog/models/gpt-4o-mini`, {
      method: "PUT",
      headers: { cookie: real, "content-type": "application/json", origin: gateway.baseUrl },
      body: JSON.stringify({ disabled: false, actor: "Mallory" }),
    });
    expect(renamed.status).toBe(400);
    // Nothing happened: no action was logged but the test's own set-up through the API (unnamed).
    const logged = await db().select().from(operatorActions);
    expect(logged.filter((row) => row.operator !== "admin-token")).toEqual([]);
  }, 240_000);

  it("edits a price, and the next request is charged at it and the change logged under the operator", async () => {
    const watched = await device();
    const { page } = watched;
    await signIn(page);
    await page
      .getByRole("navigation", { name: "Operator console" })
      .getByRole("link", { name: "Catalog" })
      .click();
    await page.getByLabel("Search models").fill("gpt-4o-mini");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const model = page.locator('[data-model="gpt-4o-mini"]');
    await model.locator("summary").click();
    // Every provider's price, so whichever serves the request charges the new one: $1 and $2 per 1M,
    // one and two microunits per token.
    const forms = model.getByRole("form", { name: /^Price of gpt-4o-mini at / });
    const names = await forms.evaluateAll((elements) =>
      elements.map((element) => element.getAttribute("aria-label") ?? ""),
    );
    const providers = names.length;
    expect(providers).toBeGreaterThan(0);
    for (const name of names) {
      const form = model.getByRole("form", { name });
      await form.getByLabel(/input, USD per 1M/).fill("1");
      await form.getByLabel(/output, USD per 1M/).fill("2");
      await form.getByRole("button", { name: "Save price" }).click();
      await form.getByRole("status").waitFor();
    }
    await shoot(page, "operator-catalog-desktop-light");

    const before = (await gateway.balanceOf(caller)).balance;
    const response = await inferenceClient(gateway, caller).chat({
      maxTokens: 5,
      content: "hi [fake:tokens=5]",
    });
    expect(response.status).toBe(200);
    const usage = ((await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } })
      .usage;
    await expect.poll(() => gateway.balanceOf(caller).then((balance) => balance.held)).toBe(0n);
    const charged = before - (await gateway.balanceOf(caller)).balance;
    expect(charged).toBe(BigInt(usage.prompt_tokens + 2 * usage.completion_tokens));

    await page.reload();
    const logged = page.getByTestId("catalog-changes").locator('tr[data-actor="operator:Ada"]');
    await expect(logged.count()).resolves.toBe(providers);
    await expect(logged.first().textContent()).resolves.toContain("gpt-4o-mini");
    await expect(logged.first().textContent()).resolves.toMatch(/input_per_1m: 150000 → 1000000/);
    const rows = await db().select().from(catalogChanges).where(eq(catalogChanges.actor, "operator:Ada"));
    expect(rows).toHaveLength(providers);
    await closeClean(watched);
  }, 240_000);

  it("shows each model's sources with the figures GET /v1/models/{id}/endpoints lists", async () => {
    // Streamed traffic, so the gateway has a time to first token and a speed to show.
    for (let index = 0; index < 3; index += 1) {
      const streamed = await inferenceClient(gateway, caller).chat({
        maxTokens: 30,
        stream: true,
        content: "figures [fake:tokens=25]",
      });
      await streamed.text();
    }
    const listing = (await (await fetch(`${gateway.baseUrl}/v1/models/gpt-4o-mini/endpoints`)).json()) as {
      data: {
        endpoints: Array<{
          tag: string;
          uptime_last_30m: number | null;
          performance: { requests: number; ttft_ms: number | null; tokens_per_second: number | null };
        }>;
      };
    };
    const served = listing.data.endpoints.filter((endpoint) => endpoint.performance.requests > 0);
    expect(served.length).toBeGreaterThan(0);
    const { page } = await device();
    await signIn(page);
    await page.goto(`${gateway.baseUrl}/dashboard/admin/catalog?q=gpt-4o-mini`);
    await page.locator('li[data-model="gpt-4o-mini"] summary').click();
    const table = page.locator('[data-sources-of="gpt-4o-mini"]');
    const shown = (value: number | null, unit: string) => (value === null ? "–" : `${value} ${unit}`);
    for (const endpoint of listing.data.endpoints) {
      const row = table.locator(`tr[data-source="${endpoint.tag}"]`);
      await expect
        .poll(() => row.locator('[data-figure="ttft"]').textContent())
        .toBe(shown(endpoint.performance.ttft_ms, "ms"));
      expect(await row.locator('[data-figure="uptime"]').textContent()).toBe(
        shown(endpoint.uptime_last_30m, "%"),
      );
      if (endpoint.performance.tokens_per_second !== null)
        expect(await row.locator('[data-figure="throughput"]').textContent()).toBe(
          `${endpoint.performance.tokens_per_second} tok/s`,
        );
    }
    expect(served.some((endpoint) => endpoint.performance.ttft_ms !== null)).toBe(true);
  }, 240_000);

  it("opens the excluded host, reads its evidence, and slashes it: the caller it served is refunded", async () => {
    const watched = await device();
    const { page } = watched;
    await signIn(page, "Grace");
    await page
      .getByTestId("operator-notices")
      .getByRole("link", { name: new RegExp(excludedName) })
      .waitFor();
    await page
      .getByRole("navigation", { name: "Operator console" })
      .getByRole("link", { name: "Hosts" })
      .click();
    const row = page.locator(`tr[data-host="${excluded.providerId}"]`);
    await expect(row.getAttribute("data-standing")).resolves.toBe("excluded");
    await row.getByRole("link", { name: excludedName }).click();
    await page.getByRole("heading", { name: "Record and evidence" }).waitFor();
    const events = page.getByTestId("trust-events").locator('li[data-kind="over_claim"]');
    await expect(events.count()).resolves.toBe(5);
    await events.first().getByText("Evidence").click();
    await expect(events.first().locator("pre").textContent()).resolves.toContain(
      '"claimed_output_tokens": 900',
    );
    await expect(page.getByTestId("standing-reasons").textContent()).resolves.not.toBe("");

    const before = (await gateway.balanceOf(caller)).balance;
    await page.getByLabel("Reason (kept with the slash)").fill("Over-claimed output tokens five times");
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Slash host" }).click();
    const said = page.getByRole("form", { name: "Slash this host" }).getByRole("status");
    await said.waitFor();
    // The caller paid 4000 microunits for the host's job: the bond pays all of it back.
    await expect(said.textContent()).resolves.toMatch(/^Slashed: \$0\.004 refunded to 1 caller\(s\)/);
    expect((await gateway.balanceOf(caller)).balance - before).toBe(4000n);
    await page.getByTestId("slashes-table").waitFor();
    await expect(page.getByTestId("slashes-table").textContent()).resolves.toContain(
      "Over-claimed output tokens five times",
    );
    await shoot(page, "operator-host-slashed-desktop-light");
    const [logged] = await db()
      .select()
      .from(operatorActions)
      .where(eq(operatorActions.action, "host_slash"));
    expect(logged).toMatchObject({ operator: "Grace", subject: excluded.providerId });
    await closeClean(watched);
  }, 240_000);

  it("approves a payout held for review", async () => {
    const watched = await device({ width: phone.width, dark: true });
    const { page } = watched;
    await signIn(page);
    await page
      .getByRole("navigation", { name: "Operator console" })
      .getByRole("link", { name: "Payouts" })
      .click();
    const row = page.locator(`#payout-${payoutId}`);
    await expect(row.getAttribute("data-status")).resolves.toBe("awaiting_approval");
    await row.getByRole("button", { name: "Approve" }).click();
    await page.locator(`#payout-${payoutId}[data-status="requested"]`).waitFor();
    expect(await horizontalOverflow(page)).toBeUndefined();
    await shoot(page, "operator-payouts-360-dark");
    const [logged] = await db()
      .select()
      .from(operatorActions)
      .where(eq(operatorActions.action, "payout_approve"));
    expect(logged).toMatchObject({ operator: "Ada", subject: payoutId });
    await closeClean(watched);
  }, 240_000);

  it("reads a reconcile report with a planted difference explained, then credits a token with a reason", async () => {
    // Scoring of one of the excluded host's answers, booked as an answer check books it.
    const { kind, ref } = systemAccounts.verificationBudget;
    const budget = await ensureAccount(db(), kind, ref);
    const scoring = await ensureAccount(db(), "suspense", `verification:${excluded.providerId}`);
    await db().transaction((tx) =>
      postTransaction(tx, {
        kind: "verification_check",
        entries: [
          { accountId: budget, amount: -1_200n },
          { accountId: scoring, amount: 1_200n },
        ],
      }),
    );
    // An upstream that bills beyond what the gateway charges (its usage over the request's caps).
    const overbilled = await inferenceClient(gateway, caller).chat({
      maxTokens: 10,
      content: "count [fake:tokens=3] [fake:overreport=5000]",
      headers: { "x-pod-providers": "openai" },
    });
    expect(overbilled.status).toBe(200);
    await overbilled.text();
    const excess = await readConsoleUpstreamExcess(db());
    expect(excess.totalMicrounits).toBeGreaterThan(0n);
    const treasury = await ensureAccount(db(), "treasury", "treasury");
    const plant = (delta: bigint) =>
      db()
        .update(accounts)
        .set({ balance: sql`${accounts.balance} + ${delta}` })
        .where(eq(accounts.id, treasury));
    await plant(7n);
    const watched = await device();
    const { page } = watched;
    try {
      await signIn(page);
      await page
        .getByRole("navigation", { name: "Operator console" })
        .getByRole("link", { name: "Money" })
        .click();
      await expect(page.getByTestId("reconcile-verdict").textContent()).resolves.toMatch(/^1 difference/);
      const difference = page.getByTestId("reconcile-differences").locator('tr[data-source="ledger"]');
      await expect(difference.getByTestId("difference-meaning").textContent()).resolves.toBe(
        "the account's stored balance is not the sum of its entries: something changed it outside a ledger transaction",
      );
      await expect(difference.textContent()).resolves.toContain(`treasury:treasury (account ${treasury})`);
      await expect(
        page.getByTestId("system-accounts").locator('[data-account="treasury:treasury"]').count(),
      ).resolves.toBe(1);
      // What verification cost, today and in all, and whose answers it was spent on.
      const costs = page.getByTestId("operator-costs");
      await expect(
        costs.locator('[data-stat="verification-today"] .dash-stat__value').textContent(),
      ).resolves.toBe("$0.0012");
      await expect(
        costs
          .locator(`[data-testid="scoring-per-host"] tr[data-host="${excluded.providerId}"]`)
          .textContent(),
      ).resolves.toBe(`${excludedName}$0.0012`);
      await expect(costs.locator('[data-stat="losses"] .dash-stat__value').textContent()).resolves.toBe(
        "$0.00",
      );
      const upstream = costs.locator('[data-stat="upstream-excess"]');
      await expect(upstream.locator(".dash-stat__value").textContent()).resolves.toBe(
        formatUsd(excess.totalMicrounits),
      );
      await expect(upstream.locator(".dash-stat__hint").textContent()).resolves.toContain(
        `openai ${formatUsd(excess.totalMicrounits)}`,
      );
      await shoot(page, "operator-money-difference-desktop-light");
    } finally {
      await plant(-7n);
    }
    await page.reload();
    await expect(page.getByTestId("reconcile-verdict").textContent()).resolves.toMatch(/^The books agree/);

    const token = await gateway.createFundedToken(1_000n);
    await page
      .getByRole("navigation", { name: "Operator console" })
      .getByRole("link", { name: "Credits" })
      .click();
    await page.getByLabel("The person's API token").fill(token);
    await page.getByLabel("Amount (USD)").fill("0.25");
    await page.getByLabel("Reason (kept in the ledger)").fill("Refund for an outage");
    await page.getByRole("button", { name: "Credit" }).click();
    await expect(
      page.getByRole("form", { name: "Credit a token" }).getByRole("status").textContent(),
    ).resolves.toBe("Credited $0.25; the balance is now $0.251.");
    // The page reloads its data after the action: the credit is listed under the operator's name.
    const credited = page
      .getByTestId("operator-actions")
      .locator("tr")
      .filter({ hasText: "Refund for an outage" });
    await credited.waitFor();
    await expect(credited.textContent()).resolves.toContain("Ada");
    // The audit log names the ledger account, never the token (it is the person's credential).
    await expect(page.getByTestId("operator-actions").textContent()).resolves.not.toContain(token);
    await closeClean(watched);
  }, 240_000);

  it("a host whose agent went away: told under Needs you, and its page says when the agent was last heard", async () => {
    const connected = () =>
      gateway.marketplace.agents().find((agent) => agent.providerId === honest.providerId);
    // A heartbeat, heard before anything is read (the registry drops an agent silent for 45 s).
    const before = connected()?.lastSeenAt.getTime() ?? 0;
    agents[1]?.send({ type: "heartbeat" });
    await expect.poll(() => connected()?.lastSeenAt.getTime() ?? 0).toBeGreaterThan(before);
    const heard = connected()?.lastSeenAt;
    if (heard === undefined) throw new Error("the honest host's agent is not connected");
    // The upkeep's pass sees the agent connected, then, once it is gone, away past the limit (600 s).
    const state: NoticeState = { absence: new AgentAbsence() };
    await runOperatorNotices(gateway.app, state, { holder: "console-e2e" });
    agents[1]?.close();
    await expect.poll(() => connected()).toBeUndefined();
    // The gateway records the close as the last time it heard the agent (hosts.agent_last_seen_at).
    const recorded = async () =>
      (await db().select({ at: hosts.agentLastSeenAt }).from(hosts).where(eq(hosts.id, honest.providerId)))[0]
        ?.at ?? undefined;
    await expect.poll(async () => (await recorded())?.getTime() ?? 0).toBeGreaterThanOrEqual(heard.getTime());
    const lastSeen = (await recorded()) ?? heard;
    const told = new Date(lastSeen.getTime() + 601_000);
    const pass = await runOperatorNotices(gateway.app, state, { now: told, holder: "console-e2e" });
    expect(pass.opened.map((notice) => [notice.kind, notice.subject])).toContainEqual([
      "agent_disconnected",
      honest.providerId,
    ]);

    const watched = await device({ width: phone.width });
    const { page } = watched;
    await signIn(page);
    await page
      .getByTestId("operator-notices")
      .locator('li[data-kind="agent_disconnected"]')
      .getByRole("link", { name: new RegExp(honestName) })
      .click();
    await page.getByRole("heading", { name: "Record and evidence" }).waitFor();
    await expect(page.getByTestId("host-agent").textContent()).resolves.toBe(
      `Agent was last heard at ${formatUtc(lastSeen)} UTC and is not connected. You were told at ${formatUtc(told)} UTC.`,
    );
    await expect(page.locator("#host-title + p").textContent()).resolves.toContain(
      "not routed while no agent is connected",
    );
    expect(await horizontalOverflow(page)).toBeUndefined();
    await shoot(page, "operator-host-away-360-light");
    await page
      .getByRole("navigation", { name: "Operator console" })
      .getByRole("link", { name: "Hosts" })
      .click();
    await expect(page.locator(`tr[data-host="${honest.providerId}"] td`).nth(3).textContent()).resolves.toBe(
      `away, told ${formatUtc(told)}`,
    );
    await closeClean(watched);
  }, 240_000);

  it("every console page fits a 360 px screen and passes axe-core, light and dark, phone and desktop", async () => {
    const views = [
      { name: "360-light", width: phone.width, dark: false },
      { name: "360-dark", width: phone.width, dark: true },
      { name: "desktop-dark", width: desktop.width, dark: true },
      { name: "desktop-light", width: desktop.width, dark: false },
    ];
    for (const view of views) {
      const watched = await device(view);
      const { page } = watched;
      await page.goto(`${gateway.baseUrl}/dashboard/admin`);
      await page.getByRole("heading", { name: "Operator sign-in" }).waitFor();
      expect(await horizontalOverflow(page), `sign-in ${view.name}`).toBeUndefined();
      expect(await axeViolations(page), `sign-in ${view.name}`).toEqual([]);
      await signIn(page);
      for (const path of [...consolePages, `/hosts/${excluded.providerId}`]) {
        await page.goto(`${gateway.baseUrl}/dashboard/admin${path}`);
        await page.getByRole("navigation", { name: "Operator console" }).waitFor();
        // Open the disclosures so what they hide is checked too.
        const closed = page.locator("main details:not([open]) > summary");
        for (let opened = 0; opened < 60 && (await closed.count()) > 0; opened += 1)
          await closed.first().click();
        expect(await horizontalOverflow(page), `${path} ${view.name}`).toBeUndefined();
        expect(await axeViolations(page), `${path} ${view.name}`).toEqual([]);
        // Every column stays on a phone (the table scrolls inside its region instead).
        for (const heading of await page.locator(".dash-console table th").all())
          expect(await heading.isVisible(), `${path} ${view.name}: ${await heading.textContent()}`).toBe(
            true,
          );
        if (view.name !== "desktop-light" || path === "")
          await shoot(
            page,
            `operator${path.replace(/\//g, "-").replace(/-[0-9a-f-]{36}$/, "-one") || "-overview"}-${view.name}`,
          );
      }
      await closeClean(watched);
    }
  }, 600_000);
});
