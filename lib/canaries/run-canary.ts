import { randomInt } from "node:crypto";
import type { CatalogModel } from "../catalog/models";
import type { Dialect } from "../dialects/dialect";
import { estimateInputTokens, parseInferenceRequest } from "../dialects/inference-request";
import { StreamedResponse } from "../http/streamed-response";
import { newId } from "../ids";
import { ensureAccount, getAccountBalance } from "../ledger/accounts";
import { postTransaction } from "../ledger/post-transaction";
import { log } from "../log";
import { centralizedCap } from "../pricing/price-cap";
import type { Candidate } from "../providers/candidate";
import { highestPrice } from "../proxy/highest-price";
import { releaseReservation, reserveForRequest } from "../proxy/reserve";
import type { ServedJob } from "../proxy/reserved-request";
import { type ServingServices, serveReserved } from "../proxy/serve-reserved";
import { centralizedCandidates } from "../routing/centralized-candidates";
import { marketplaceCandidates } from "../routing/marketplace-candidates";
import type { RoutingServices } from "../routing/routing-state";
import { inNewTrace } from "../telemetry/tracing";
import { corpusEntries, corpusTurn, inventedTexts, inventionPrompt } from "./canary-texts";
import { fillShape, JobShapes, type TextSlot, textSlots } from "./job-shapes";
import {
  noteVerificationSpend,
  referenceAmong,
  scoreServedAnswer,
  todaySpent,
  verificationBudget,
} from "./score-answer";

/** What a canary reads: the routing state to pick the host, and what serving a held request reads. */
export type CanaryServices = RoutingServices & ServingServices;

/**
 * The caller canaries are billed to, like any caller, so the host is paid for a canary exactly
 * as for a real job (a host cannot tell them apart by its earnings). It is topped up from the
 * operator's verification budget, an external account: what verification costs is on the books.
 */
const canaryCaller = { kind: "suspense", ref: "canary-caller" } as const;
const topUpBelow = 1_000_000n;
const topUpAmount = 5_000_000n;

async function canaryAccount(app: CanaryServices): Promise<bigint> {
  const database = app.database.db;
  const account = await ensureAccount(database, canaryCaller.kind, canaryCaller.ref);
  if ((await getAccountBalance(database, account)).available >= topUpBelow) return account;
  const budget = await ensureAccount(database, verificationBudget.kind, verificationBudget.ref);
  await database.transaction((tx) =>
    postTransaction(tx, {
      kind: "canary_budget",
      metadata: { note: "verification budget for canary jobs" },
      entries: [
        { accountId: budget, amount: -topUpAmount },
        { accountId: account, amount: topUpAmount },
      ],
    }),
  );
  noteVerificationSpend(topUpAmount);
  return account;
}

/** The sample of real job shapes canaries are drawn from (this process's). */
const jobShapes = new JobShapes();

/** A served marketplace job's body, as its agent was sent it, joins the sample of real shapes. */
export function recordJobShape(candidate: Candidate, model: CatalogModel, job: ServedJob): void {
  if (candidate.route !== "marketplace") return;
  try {
    const body: unknown = JSON.parse(job.forwardedBody);
    if (typeof body === "object" && body !== null && !Array.isArray(body))
      jobShapes.record(model.id, candidate.dialect, body as Record<string, unknown>);
  } catch {
    // A body that is not JSON has no shape to imitate.
  }
}

/**
 * One request through the same pipeline a caller's takes (hold, body building, dispatch,
 * metering, settlement), in `dialect`, to `candidates` only, in a trace of its own; what was
 * served (its forwarded body, its answer), or undefined when no source served it whole.
 */
async function serveCanaryRequest(
  app: CanaryServices,
  model: CatalogModel,
  dialect: Dialect,
  body: Record<string, unknown>,
  candidates: Candidate[],
): Promise<ServedJob | undefined> {
  return inNewTrace("canary job", { "gen_ai.request.model": model.id }, async () => {
    const rawBody = JSON.stringify(body);
    const inference = parseInferenceRequest(dialect, body, rawBody);
    const accountId = await canaryAccount(app);
    const inputTokens = estimateInputTokens(inference, model.contextWindow);
    // Held as a caller's with this body would be, so the limit the source is sent is the body's.
    const reservation = await reserveForRequest(app, {
      accountId,
      price: highestPrice(candidates),
      inputTokens,
      maxOutputTokens: Math.min(inference.maxTokens ?? model.maxOutputTokens, model.maxOutputTokens),
      choices: inference.choices,
      callerLimit: inference.maxTokens !== undefined,
      balanceShare: app.env.HOLD_BALANCE_SHARE,
    });
    const request = new Request(
      `http://canary.invalid/v1/${dialect === "anthropic" ? "messages" : "chat/completions"}`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: rawBody,
      },
    );
    let served: ServedJob | undefined;
    let response: Response;
    try {
      response = await serveReserved(app, request, {
        requestId: newId("req"),
        accountId,
        inference,
        model,
        candidates,
        reservation,
        maxInputTokens: inputTokens,
        onServed: (_candidate, job) => {
          served = job;
        },
      });
    } catch (error) {
      await releaseReservation(app, accountId, reservation.hold);
      log.info("canary request not served", { error });
      return undefined;
    }
    // Read to its end (a relayed stream the way server.ts writes it: from its chunk source), so
    // the request is settled and `onServed` has run.
    await (response instanceof StreamedResponse ? new Response(response.body) : response).text();
    // A cut, stalled or failed answer is no verdict on the model (it is a broken job of its own).
    return response.status === 200 && served?.outcome === "completed" ? served : undefined;
  });
}

/**
 * System prompts invented for canaries, per model, reused as an application reuses its own: a
 * canary whose system prompt were new every time would stand out among real jobs, whose system
 * prompts repeat. A system turn takes one from the pool at REUSE_SYSTEM, else a new one joins it.
 */
const systemPools = new Map<string, string[]>();
const systemPoolSize = 16;
const reuseSystem = 0.8;

function pooledSystem(model: string): string | undefined {
  const pool = systemPools.get(model) ?? [];
  return pool.length > 0 && Math.random() < reuseSystem ? pool[randomInt(pool.length)] : undefined;
}

function poolSystem(model: string, text: string): void {
  const pool = systemPools.get(model) ?? [];
  if (pool.length >= systemPoolSize) pool[randomInt(pool.length)] = text;
  else pool.push(text);
  if (systemPools.size < maxPooledModels || systemPools.has(model)) systemPools.set(model, pool);
}
const maxPooledModels = 1024;

/**
 * The words of a canary for `slots`: user turns from the operator's corpus when it has one, the
 * rest invented for this canary by a trusted centralized source of the model. Undefined when
 * there are words to invent and no source wrote them.
 */
async function canaryWords(
  app: CanaryServices,
  model: CatalogModel,
  slots: readonly TextSlot[],
  references: Candidate[],
): Promise<string[] | undefined> {
  const corpus = corpusEntries(app.env.CANARY_CORPUS_PATH);
  const texts: Array<string | undefined> = slots.map((slot) =>
    slot.$text === "user"
      ? corpusTurn(corpus, slot.chars)
      : slot.$text === "system"
        ? pooledSystem(model.id)
        : undefined,
  );
  const missing = slots.filter((_, index) => texts[index] === undefined);
  if (missing.length > 0) {
    const wanted = missing.reduce((sum, slot) => sum + slot.chars, 0);
    const invented = await serveCanaryRequest(
      app,
      model,
      "openai",
      {
        model: model.id,
        messages: [{ role: "user", content: inventionPrompt(missing) }],
        temperature: 1,
        // About four characters a token, with room for the JSON around the texts.
        max_tokens: Math.min(Math.ceil(wanted / 3) + 200, model.maxOutputTokens),
        stream: false,
      },
      references,
    );
    const words = invented && inventedTexts(invented.answer(), missing);
    if (!words) return undefined;
    let next = 0;
    for (let index = 0; index < texts.length; index += 1)
      if (texts[index] === undefined) {
        const text = words[next] ?? "";
        texts[index] = text;
        next += 1;
        if (slots[index]?.$text === "system") poolSystem(model.id, text);
      }
  }
  return texts.map((text) => text ?? "");
}

interface CanaryVerdict {
  passed: boolean;
}

/**
 * One hidden canary job for `hostId` serving `model`: a body drawn from the sample of real jobs'
 * shapes for the model and the host's format, filled with words no agent has seen (the corpus,
 * or invented by a trusted source), sent through the caller's pipeline to the host's agent;
 * its answer is scored under a trusted centralized source of the model, like a checked real
 * answer, and the verdict recorded. Undefined when there is no shape or reference yet, the host
 * had no free slot, or the answer could not be scored (no verdict either way).
 */
async function runCanary(
  app: CanaryServices,
  hostId: string,
  model: CatalogModel,
): Promise<CanaryVerdict | undefined> {
  const cap = centralizedCap(app.catalog.pricesFor(model));
  const target = (await marketplaceCandidates(app, model, cap, { includeExcluded: true })).find(
    (candidate) => candidate.providerId === hostId,
  );
  const skipped = (reason: string) => {
    log.debug("no canary verdict", { provider: hostId, model: model.id, reason });
    return undefined;
  };
  if (!target) return skipped("the host serves the model no more");
  const shape = jobShapes.draw(model.id, target.dialect);
  const references = centralizedCandidates(app, model);
  const reference = referenceAmong(references);
  if (!shape || !reference) return skipped(shape ? "no reference for the model" : "no real job's shape yet");
  const slots = textSlots(shape);
  const words = await canaryWords(app, model, slots, references);
  if (!words) return skipped("no source wrote the canary's words");
  const served = await serveCanaryRequest(app, model, target.dialect, fillShape(shape, words), [target]);
  if (!served) return skipped("the host did not serve the canary whole");
  const check = await scoreServedAnswer(app, model, target, reference, served, {
    kind: "canary",
    shown: {
      turns: slots.filter((slot) => slot.$text !== "system").length,
      prompt: (words.at(-1) ?? "").slice(0, 300),
      answer: served.answer().slice(0, 300),
    },
  });
  if (!check) return skipped("the answer could not be scored");
  const passed = check.logE < Math.log(1000);
  // A failure is followed by another canary, until the host passes one or its record proves
  // substitution (it is then slashed, when automatic slashing is on, and the chain ends).
  if (!passed && !app.routing.reputation.of(hostId).proven) launch(app, hostId, model, true);
  return { passed };
}

/** Canaries running in this process: bounded, so traffic cannot pile them up. */
let running = 0;
const maxRunning = 4;

/**
 * After a real marketplace job, with probability CANARY_SHARE, one canary for the same host and
 * model follows after a random delay of up to CANARY_MAX_DELAY_MS: canaries arrive mixed into
 * real traffic, at a share of it.
 */
export function scheduleCanary(app: CanaryServices, candidate: Candidate, model: CatalogModel): void {
  if (candidate.route !== "marketplace" || app.env.CANARY_SHARE <= 0) return;
  if (Math.random() >= app.env.CANARY_SHARE) return;
  if (todaySpent() >= app.env.VERIFY_DAILY_BUDGET_MICROUNITS) return;
  launch(app, candidate.providerId, model);
}

/**
 * Runs one canary for the host after a random delay within CANARY_MAX_DELAY_MS. A follow-up of a
 * failed canary is never dropped for the bound: the chain is one canary at a time per host.
 */
function launch(app: CanaryServices, hostId: string, model: CatalogModel, followUp = false): void {
  if (running >= maxRunning && !followUp) {
    log.debug("canary dropped: too many running", { provider: hostId, running });
    return;
  }
  running += 1;
  const timer = setTimeout(
    () => {
      runCanary(app, hostId, model)
        .catch((error: unknown) => log.error("canary failed to run", { provider: hostId, error }))
        .finally(() => {
          running -= 1;
        });
    },
    Math.floor(Math.random() * app.env.CANARY_MAX_DELAY_MS),
  );
  timer.unref();
}
