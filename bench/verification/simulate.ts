import {
  answerEvidence,
  defaultEvidenceSettings,
  type EvidenceSettings,
  type ScoredPosition,
} from "../../lib/verification/answer-evidence";
import {
  type DetectorSettings,
  defaultDetectorSettings,
  newDetector,
  observeAnswer,
} from "../../lib/verification/cheat-detector";
import { resampleEvidence } from "../../lib/verification/resample-evidence";
import {
  type Answer,
  endToken,
  generate,
  logSoftmax,
  type ModelSpec,
  modelLogits,
  normal,
  stream,
} from "./fake-model";

/**
 * One host's life in the marketplace, job by job: real jobs of a seeded shape, a share of them
 * checked after the caller was served (the host's tokens scored under the reference model), hidden
 * canaries mixed in, and the per-host detector deciding. The host may cheat on a share of its real
 * jobs, in one of three ways, may tell canaries apart by what it sees, and may behave first.
 */
type CheatMode = "smaller" | "garbage" | "truncated";

export interface Scenario {
  name: string;
  /** The temperature callers ask for. */
  temperature: number;
  cheat?: {
    mode: CheatMode;
    rate: number;
    /** Honest for this many real jobs first. */
    after?: number;
  };
  /**
   * The host answers honestly whatever it takes for a canary, by every feature it sees: the old
   * templated canaries' shape (one user turn, temperature 0, 64 tokens), a shape (fields, turns,
   * settings) it has not seen before, a system prompt it has not seen before, a last user turn it
   * was sent before. Canaries are drawn from the shapes of real jobs, their system prompts from a
   * pool reused as applications reuse theirs, their words new (lib/canaries).
   */
  classifiesCanaries?: boolean;
  /** Real jobs in a run. */
  jobs: number;
  /** The model a "smaller" cheat answers from, when not the settings' one. */
  smaller?: ModelSpec;
  /**
   * How an answer is checked: scored under the reference's log-probabilities (the default), or,
   * for a reference that offers none, compared with the reference's own samples of the same
   * request (lib/verification/resample-evidence.ts).
   */
  check?: "logprobs" | "resampled";
}

export interface SimulationSettings {
  verifyShare: number;
  canaryShare: number;
  /** Logit noise of serving (the host and the reference alike). */
  servingNoise: number;
  /** Top alternatives the reference returns per position (OpenAI's `logprobs` allows 5). */
  topAlternatives: number;
  /** The reference's samples per checked answer, where it offers no log-probabilities (VERIFY_RESAMPLES). */
  resamples: number;
  model: ModelSpec;
  smaller: ModelSpec;
  evidence: EvidenceSettings;
  detector: DetectorSettings;
  /** Prices per token, in the same unit: the host's, and the reference's for scoring. */
  prices: { hostInput: number; hostOutput: number; referenceInput: number; referenceOutput: number };
}

export const defaultSimulationSettings: SimulationSettings = {
  verifyShare: 0.12,
  canaryShare: 0.01,
  servingNoise: 0.15,
  topAlternatives: 5,
  resamples: 4,
  // Entropy about 1.2 nats a token at temperature 1, the top 5 tokens about 93% of the mass.
  model: { seed: 7001, scale: 3.5 },
  // A smaller sibling: the same most likely token at 52% of positions, 0.81 nats a token apart
  // (KL at temperature 1). A closer one is a scenario of its own.
  smaller: { seed: 9103, scale: 3.5, family: { seed: 7001, deviation: 0.55 } },
  evidence: defaultEvidenceSettings,
  detector: defaultDetectorSettings,
  // A host sells below the centralized price; scoring is a prefill of prompt and answer plus one token.
  prices: { hostInput: 0.8, hostOutput: 0.8, referenceInput: 1, referenceOutput: 1 },
};

interface RunResult {
  /**
   * Real jobs the host had served when it was excluded, counted from its switch for a host that
   * behaved first (0 or less: excluded while it still behaved).
   */
  excludedAfter: number | undefined;
  checked: number;
  canaries: number;
  /** Canaries the classifier took for canaries, and real jobs it did. */
  sparedCanaries: number;
  sparedReal: number;
  realJobs: number;
  revenue: number;
  verificationCost: number;
}

/** Share of real jobs whose shape matches the old templated canaries. */
const canaryShapedShare = 0.02;
/** Applications sending real jobs: each its own shape and system prompt, their traffic Zipf-distributed. */
const applications = 60;
/** The canaries' pool of invented system prompts, and how often a canary reuses one (lib/canaries/run-canary.ts). */
const systemPoolSize = 16;
const reuseSystem = 0.8;

interface JobShape {
  prompt: number;
  promptTokens: number;
  maxTokens: number;
  /** Looks like an old templated canary, to a host that checks. */
  canaryShaped: boolean;
  /** The application whose shape (fields, turns, settings) it has. */
  application: number;
  /** Its system prompt: the application's own for a real job, one of the pool's for a canary. */
  system: number;
}

function zipf(random: () => number, count: number): number {
  const weights = Array.from({ length: count }, (_, index) => 1 / (index + 1));
  let draw = random() * weights.reduce((sum, weight) => sum + weight, 0);
  for (let index = 0; index < count; index += 1) {
    draw -= weights[index] ?? 0;
    if (draw <= 0) return index;
  }
  return count - 1;
}

function drawShape(random: () => number): JobShape {
  const limits = [64, 128, 256, 512, 1024];
  const application = zipf(random, applications);
  return {
    prompt: Math.floor(random() * 2 ** 31),
    promptTokens: Math.round(50 * 60 ** random()),
    maxTokens: limits[Math.floor(random() * limits.length)] ?? 256,
    canaryShaped: random() < canaryShapedShare,
    application,
    system: application,
  };
}

/**
 * What the gateway knows of real traffic (a sample of its shapes) and its canaries' system-prompt
 * pool; a canary is a real job's shape (drawn from the sample) with new words and a pooled system
 * prompt.
 */
class CanaryMaker {
  readonly #seen: JobShape[] = [];
  readonly #pool: number[] = [];
  #nextSystem = 1_000_000;

  observe(shape: JobShape): void {
    this.#seen.push(shape);
  }

  make(random: () => number): JobShape {
    const base = this.#seen[Math.floor(random() * this.#seen.length)] ?? drawShape(random);
    let system =
      this.#pool.length > 0 && random() < reuseSystem
        ? this.#pool[Math.floor(random() * this.#pool.length)]
        : undefined;
    if (system === undefined) {
      system = this.#nextSystem;
      this.#nextSystem += 1;
      if (this.#pool.length < systemPoolSize) this.#pool.push(system);
      else this.#pool[Math.floor(random() * systemPoolSize)] = system;
    }
    return { ...base, prompt: Math.floor(random() * 2 ** 31), system };
  }
}

/** The hostile host's guess (tests/helpers/hostile-agent-process.ts's rules): true when it takes the job for a canary. */
class CanaryClassifier {
  readonly #applications = new Set<number>();
  readonly #systems = new Set<number>();

  suspects(shape: JobShape): boolean {
    const unseenShape = !this.#applications.has(shape.application);
    const unseenSystem = !this.#systems.has(shape.system);
    this.#applications.add(shape.application);
    this.#systems.add(shape.system);
    // Canaries' words are new and real users' last turns rarely repeat: no replayed turn to see.
    return shape.canaryShaped || unseenShape || unseenSystem;
  }
}

function cheatAnswer(
  mode: CheatMode,
  smaller: ModelSpec,
  settings: SimulationSettings,
  shape: JobShape,
  temperature: number,
  random: () => number,
): Answer {
  if (mode === "smaller")
    return generate(smaller, shape.prompt, temperature, shape.maxTokens, settings.servingNoise, random);
  const honest = generate(
    settings.model,
    shape.prompt,
    temperature,
    shape.maxTokens,
    settings.servingNoise,
    random,
  );
  if (mode === "truncated") {
    if (honest.tokens.length < 2) return honest;
    return { tokens: honest.tokens.slice(0, Math.ceil(honest.tokens.length / 2)), stopped: true };
  }
  return {
    tokens: honest.tokens.map(() => Math.floor(random() * endToken)),
    stopped: honest.stopped,
  };
}

/** An answer as text: token `k` is the word `w<k>` (tests/helpers/fake-model-text.ts writes the same). */
function words(answer: Answer): string {
  return answer.tokens.map((token) => `w${token}`).join(" ");
}

/** The reference's teacher-forced scoring of an answer: each token's logprob and the top alternatives. */
function scoreAnswer(
  settings: SimulationSettings,
  prompt: number,
  answer: Answer,
  random: () => number,
): ScoredPosition[] {
  const scored = answer.stopped ? [...answer.tokens, endToken] : answer.tokens;
  return scored.map((token, index) => {
    const logits = modelLogits(settings.model, { prompt, previous: answer.tokens, length: index }).map(
      (value) => value + settings.servingNoise * normal(random),
    );
    const logprobs = logSoftmax(logits);
    // The reference's top alternatives, the end token among them or not, as the wire carries them.
    const ranked = logprobs
      .map((logprob, candidate) => ({ logprob, candidate }))
      .sort((a, b) => b.logprob - a.logprob)
      .slice(0, settings.topAlternatives);
    const end = ranked.find((entry) => entry.candidate === endToken)?.logprob;
    return {
      logprob: logprobs[token] ?? Number.NEGATIVE_INFINITY,
      top: ranked.filter((entry) => entry.candidate !== endToken).map((entry) => entry.logprob),
      ...(end === undefined ? {} : { end }),
      ...(token === endToken ? { stop: true } : {}),
    };
  });
}

function simulateRun(scenario: Scenario, seed: number, settings = defaultSimulationSettings): RunResult {
  const random = stream(seed);
  let detector = newDetector(settings.detector);
  const cheatFrom = scenario.cheat?.after ?? 0;
  const prices = settings.prices;
  const tally = {
    promptTokens: 0,
    realJobs: 0,
    checkedReal: 0,
    checkedRealTokens: 0,
    cost: 0,
    canaries: 0,
    sparedCanaries: 0,
    sparedReal: 0,
  };
  const maker = new CanaryMaker();
  const classifier = new CanaryClassifier();
  /**
   * Serves one job and, when checked, feeds the detector; true once the host is found cheating.
   * Only a checked job's answer is generated: an unchecked one's output is priced at the mean
   * length of the checked real answers (they are a uniform sample of them).
   */
  const serve = (shape: JobShape, index: number, canary: boolean, checked: boolean): boolean => {
    if (!canary) {
      tally.realJobs += 1;
      tally.promptTokens += shape.promptTokens;
    }
    const cheat = scenario.cheat;
    const spared = scenario.classifiesCanaries === true && classifier.suspects(shape);
    if (spared && canary) tally.sparedCanaries += 1;
    else if (spared) tally.sparedReal += 1;
    const cheating = cheat !== undefined && index >= cheatFrom && !spared && random() < cheat.rate;
    if (!checked) return false;
    const answer = cheating
      ? cheatAnswer(
          cheat.mode,
          scenario.smaller ?? settings.smaller,
          settings,
          shape,
          scenario.temperature,
          random,
        )
      : generate(
          settings.model,
          shape.prompt,
          scenario.temperature,
          shape.maxTokens,
          settings.servingNoise,
          random,
        );
    if (canary)
      tally.cost += shape.promptTokens * prices.hostInput + answer.tokens.length * prices.hostOutput;
    else {
      tally.checkedReal += 1;
      tally.checkedRealTokens += answer.tokens.length;
    }
    let logE: number | undefined;
    if (scenario.check === "resampled") {
      // The same request answered again by the reference, `resamples` times (one prefill, as
      // OpenAI's `n` asks), a greedy job at the scoring floor (lib/canaries/resample-answer.ts).
      const samples = Array.from({ length: settings.resamples }, () =>
        generate(
          settings.model,
          shape.prompt,
          Math.max(scenario.temperature, settings.evidence.temperatureFloor),
          shape.maxTokens,
          settings.servingNoise,
          random,
        ),
      );
      tally.cost +=
        shape.promptTokens * prices.referenceInput +
        samples.reduce((sum, sample) => sum + sample.tokens.length + 1, 0) * prices.referenceOutput;
      logE = resampleEvidence(words(answer), samples.map(words))?.logE;
    } else {
      tally.cost +=
        (shape.promptTokens + answer.tokens.length + 1) * prices.referenceInput + prices.referenceOutput;
      logE = answerEvidence(
        scoreAnswer(settings, shape.prompt, answer, random),
        scenario.temperature,
        settings.evidence,
      )?.logE;
    }
    if (logE === undefined) return false;
    const step = observeAnswer(detector, logE, settings.detector);
    detector = step.state;
    return step.cheating;
  };
  let excludedAfter: number | undefined;
  for (let index = 0; index < scenario.jobs && excludedAfter === undefined; index += 1) {
    const shape = drawShape(random);
    maker.observe(shape);
    if (serve(shape, index, false, random() < settings.verifyShare)) excludedAfter = index + 1 - cheatFrom;
    else if (random() < settings.canaryShare) {
      // A canary's shape is drawn from real jobs': a classifier sees what it sees in real traffic.
      tally.canaries += 1;
      if (serve(maker.make(random), index, true, true)) excludedAfter = index + 1 - cheatFrom;
    }
  }
  const meanAnswer = tally.checkedReal === 0 ? 0 : tally.checkedRealTokens / tally.checkedReal;
  return {
    realJobs: tally.realJobs,
    excludedAfter,
    checked: detector.checked,
    canaries: tally.canaries,
    sparedCanaries: tally.sparedCanaries,
    sparedReal: tally.sparedReal,
    revenue: tally.promptTokens * prices.hostInput + tally.realJobs * meanAnswer * prices.hostOutput,
    verificationCost: tally.cost,
  };
}

export interface ScenarioReport {
  scenario: Scenario;
  runs: number;
  /** Runs in which the host was excluded within `within` real jobs (of its cheating). */
  excludedWithin: number;
  within: number;
  /** Runs in which it was excluded while cheating. */
  excluded: number;
  /** Runs in which it was excluded while honest. */
  falseExclusions: number;
  medianJobsToExclusion: number | undefined;
  checkedPerRun: number;
  costShare: number;
  /** The shares of canaries and of real jobs a classifying host took for canaries (over every run). */
  sparedCanaryShare: number;
  sparedRealShare: number;
}

function share(
  results: readonly RunResult[],
  part: "sparedCanaries" | "sparedReal",
  whole: "canaries" | undefined,
  total?: number,
): number {
  const parts = results.reduce((sum, result) => sum + result[part], 0);
  const wholes = total ?? results.reduce((sum, result) => sum + (whole ? result[whole] : 0), 0);
  return wholes === 0 ? 0 : parts / wholes;
}

export function simulateScenario(
  scenario: Scenario,
  runs: number,
  within: number,
  settings = defaultSimulationSettings,
  firstSeed = 1,
): ScenarioReport {
  const results = Array.from({ length: runs }, (_, run) => simulateRun(scenario, firstSeed + run, settings));
  const honest = scenario.cheat === undefined;
  const ends = results
    .map((result) => result.excludedAfter)
    .filter((jobs): jobs is number => jobs !== undefined);
  const times = ends.filter((jobs) => !honest && jobs > 0).sort((a, b) => a - b);
  const revenue = results.reduce((sum, result) => sum + result.revenue, 0);
  const cost = results.reduce((sum, result) => sum + result.verificationCost, 0);
  return {
    scenario,
    runs,
    excludedWithin: times.filter((jobs) => jobs <= within).length,
    within,
    excluded: times.length,
    falseExclusions: ends.length - times.length,
    medianJobsToExclusion: times.length === 0 ? undefined : times[Math.floor((times.length - 1) / 2)],
    checkedPerRun: results.reduce((sum, result) => sum + result.checked, 0) / runs,
    sparedCanaryShare: share(results, "sparedCanaries", "canaries"),
    sparedRealShare: share(
      results,
      "sparedReal",
      undefined,
      results.reduce((sum, result) => sum + result.realJobs, 0),
    ),
    costShare: revenue === 0 ? 0 : cost / revenue,
  };
}
