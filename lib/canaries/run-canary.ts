import type { CatalogModel } from "../catalog/models";
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
import { type ServingServices, serveReserved } from "../proxy/serve-reserved";
import { centralizedCandidates } from "../routing/centralized-candidates";
import { marketplaceCandidates } from "../routing/marketplace-candidates";
import type { RoutingServices } from "../routing/routing-state";
import { noteTrustEvents } from "../trust/note-trust-events";
import { tapWholeStream } from "../usage/usage-from-body";
import { type CanaryPrompt, knownAnswerPrompt, openPrompt } from "./canary-prompts";
import { answerSimilarity, similarityThreshold } from "./compare-answers";

/** What a canary reads: the routing state to pick the host, and what serving a held request reads. */
export type CanaryServices = RoutingServices & ServingServices;

/**
 * The caller canaries are billed to, like any caller, so the host is paid for a canary exactly
 * as for a real job (a host cannot tell them apart by its earnings). It is topped up from the
 * operator's verification budget, an external account: what verification costs is on the books.
 */
const canaryCaller = { kind: "suspense", ref: "canary-caller" } as const;
const verificationBudget = { kind: "external", ref: "verification-budget" } as const;
const topUpBelow = 1_000_000n;
const topUpAmount = 5_000_000n;
/** Canaries ask for a short answer at temperature 0, as many real calls do. */
const canaryMaxTokens = 64;

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
  return account;
}

/**
 * One request through the same pipeline a caller's takes (hold, body building, dispatch,
 * metering, settlement), to `candidates` only; the answer's text, or undefined when no source
 * served it.
 */
async function serveCanaryRequest(
  app: CanaryServices,
  model: CatalogModel,
  body: Record<string, unknown>,
  candidates: Candidate[],
): Promise<{ text: string; requestId: string } | undefined> {
  const rawBody = JSON.stringify(body);
  const inference = parseInferenceRequest("openai", body, rawBody);
  const accountId = await canaryAccount(app);
  const inputTokens = estimateInputTokens(inference, model.contextWindow);
  const reservation = await reserveForRequest(app, {
    accountId,
    price: highestPrice(candidates),
    inputTokens,
    maxOutputTokens: Math.min(canaryMaxTokens, model.maxOutputTokens),
    choices: 1,
    callerLimit: true,
    balanceShare: app.env.HOLD_BALANCE_SHARE,
  });
  const requestId = newId("req");
  const request = new Request("http://canary.invalid/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: rawBody,
  });
  let response: Response;
  try {
    response = await serveReserved(app, request, {
      requestId,
      accountId,
      inference,
      model,
      candidates,
      reservation,
      maxInputTokens: inputTokens,
    });
  } catch (error) {
    await releaseReservation(app, accountId, reservation.hold);
    log.info("canary request not served", { error });
    return undefined;
  }
  // A relayed stream is read the way server.ts writes it: from its chunk source.
  const text = await (response instanceof StreamedResponse ? new Response(response.body) : response).text();
  if (response.status !== 200) return undefined;
  if (inference.stream) {
    // A stream that did not finish (cut, timed out, failed in-band) is no verdict on the model.
    const tap = tapWholeStream("openai", text);
    if (!tap.sawTerminal || tap.upstreamError !== undefined) return undefined;
    return { text: tap.content.text(), requestId };
  }
  try {
    const parsed = JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> };
    const content = parsed.choices?.[0]?.message?.content;
    return { text: typeof content === "string" ? content : "", requestId };
  } catch {
    return { text, requestId };
  }
}

interface CanaryVerdict {
  passed: boolean;
  detail: string;
}

function judge(prompt: CanaryPrompt, answer: string, reference: string | undefined): CanaryVerdict {
  if (prompt.expected !== undefined) {
    const passed = answer.toLowerCase().includes(prompt.expected.toLowerCase());
    return {
      passed,
      detail: passed
        ? "canary answered the known answer"
        : `canary answer did not contain the known answer "${prompt.expected}"`,
    };
  }
  const similarity = answerSimilarity(answer, reference ?? "");
  const passed = similarity >= similarityThreshold;
  return {
    passed,
    detail: `canary answer ${passed ? "matched" : "differed from"} the reference source's answer for the model (word overlap ${similarity.toFixed(2)}, threshold ${similarityThreshold})`,
  };
}

/**
 * One hidden canary job for `hostId` serving `model`: a templated prompt sent to the host's
 * agent through the caller's pipeline (same job frames, same body shape), and the same prompt to
 * a trusted centralized source of the model; the answers are compared and the verdict recorded.
 * Without a centralized source the prompt has a known answer instead. Undefined when the host
 * had no free slot or a source did not answer (no verdict either way).
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
  if (!target) return undefined;
  const references = centralizedCandidates(app, model);
  const prompt = references.length > 0 ? openPrompt() : knownAnswerPrompt();
  const body = {
    model: model.id,
    messages: [{ role: "user", content: prompt.text }],
    max_tokens: canaryMaxTokens,
    temperature: 0,
    stream: Math.random() < 0.5,
  };
  const answer = await serveCanaryRequest(app, model, body, [target]);
  if (!answer) return undefined;
  let reference: string | undefined;
  if (prompt.expected === undefined) {
    reference = (await serveCanaryRequest(app, model, { ...body, stream: false }, references))?.text;
    if (reference === undefined) return undefined;
  }
  const verdict = judge(prompt, answer.text, reference);
  await noteTrustEvents(app, hostId, [
    {
      kind: verdict.passed ? "canary_pass" : "canary_fail",
      detail: verdict.detail,
      requestId: answer.requestId,
      evidence: {
        model: model.id,
        prompt: prompt.text,
        answer: answer.text.slice(0, 300),
        ...(reference === undefined ? { expected: prompt.expected } : { reference: reference.slice(0, 300) }),
      },
    },
  ]);
  // A failure is followed by another canary, until the host passes one or its record proves
  // substitution (it is then slashed, when automatic slashing is on, and the chain ends).
  if (!verdict.passed && !app.routing.reputation.of(hostId).proven) launch(app, hostId, model, true);
  return verdict;
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
  launch(app, candidate.providerId, model);
}

/**
 * Runs one canary for the host after a random delay within CANARY_MAX_DELAY_MS. A follow-up of a
 * failed canary is never dropped for the bound: the chain is one canary at a time per host.
 */
function launch(app: CanaryServices, hostId: string, model: CatalogModel, followUp = false): void {
  if (running >= maxRunning && !followUp) return;
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
