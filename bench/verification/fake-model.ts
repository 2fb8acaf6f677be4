/**
 * A fake language model for the verification simulation: a seeded, context-dependent
 * distribution over a small vocabulary plus an end token, with real log-probabilities. Each
 * "model" is a seed; a smaller model of the same family is the larger one's logits plus its own
 * seeded deviation (so the two agree on most likely tokens and differ the way a distilled or
 * smaller sibling does). Serving adds per-call noise to the logits: hardware, batching and
 * kernels are not bit-identical between a host and the reference.
 */
const vocabulary = 32;
/** The end token's index: a position where the answer stops is scored like any other. */
export const endToken = vocabulary;
/** How fast the end token grows likelier: answers of about 90 tokens at temperature 0.7. */
const answerScale = 15;

export interface ModelSpec {
  seed: number;
  /** Spread of the logits: larger is more peaked (lower entropy). */
  scale: number;
  /** A sibling: this model's logits are `family`'s plus `deviation` times its own. */
  family?: { seed: number; deviation: number };
}

/** A 32-bit hash of integers (murmur-style finaliser over a running mix). */
function hash(values: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const value of values) {
    h = Math.imul(h ^ (value | 0), 0x01000193);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
  }
  return h >>> 0;
}

/** mulberry32 from a seed: the same stream for the same context, in every process. */
export function stream(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function normal(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** The context a next token depends on: the prompt and the answer so far (its last two tokens and its length). */
export interface Context {
  prompt: number;
  previous: readonly number[];
  /** The answer's length so far, when `previous` is the whole answer rather than its start. */
  length?: number;
}

function baseLogits(seed: number, scale: number, context: Context): number[] {
  const length = context.length ?? context.previous.length;
  const random = stream(
    hash([
      seed,
      context.prompt,
      context.previous[length - 1] ?? -1,
      context.previous[length - 2] ?? -1,
      length,
    ]),
  );
  const logits: number[] = [];
  // Box-Muller gives two normals a draw: both are used.
  for (let token = 0; token <= vocabulary; token += 2) {
    const radius = Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12)));
    const angle = 2 * Math.PI * random();
    logits.push(scale * radius * Math.cos(angle), scale * radius * Math.sin(angle));
  }
  logits.length = vocabulary;
  // The end token grows likelier as the answer grows.
  logits.push(-5 + length / answerScale + normal(random));
  return logits;
}

export function modelLogits(model: ModelSpec, context: Context): number[] {
  const own = baseLogits(model.seed, model.scale, context);
  if (!model.family) return own;
  const family = baseLogits(model.family.seed, model.scale, context);
  const deviation = model.family.deviation;
  // Words: the family's logits bent by the sibling's own, at the same spread. The end token
  // keeps the family's growth with length, its noise mixed.
  const spread = Math.sqrt(1 + deviation * deviation);
  return family.map((value, index) =>
    index === endToken
      ? (value + deviation * (own[index] ?? 0)) / (1 + deviation)
      : (value + deviation * (own[index] ?? 0)) / spread,
  );
}

export function logSoftmax(logits: readonly number[]): number[] {
  const peak = Math.max(...logits);
  const total = logits.reduce((sum, value) => sum + Math.exp(value - peak), 0);
  const log = peak + Math.log(total);
  return logits.map((value) => value - log);
}

/** A token drawn at `temperature` (0: the most likely), from logits with serving noise added. */
function sampleToken(
  logits: readonly number[],
  temperature: number,
  noise: number,
  random: () => number,
): number {
  const served = logits.map((value) => value + noise * normal(random));
  if (temperature <= 0) return served.indexOf(Math.max(...served));
  const probabilities = logSoftmax(served.map((value) => value / temperature)).map(Math.exp);
  let draw = random();
  for (let token = 0; token < probabilities.length; token += 1) {
    draw -= probabilities[token] ?? 0;
    if (draw <= 0) return token;
  }
  return probabilities.length - 1;
}

export interface Answer {
  tokens: number[];
  /** The answer ended with the end token (scored), rather than at its length limit. */
  stopped: boolean;
}

/** An answer from `model` to `prompt`, at most `maxTokens` long. */
export function generate(
  model: ModelSpec,
  prompt: number,
  temperature: number,
  maxTokens: number,
  noise: number,
  random: () => number,
): Answer {
  const tokens: number[] = [];
  while (tokens.length < maxTokens) {
    const token = sampleToken(modelLogits(model, { prompt, previous: tokens }), temperature, noise, random);
    if (token === endToken) return { tokens, stopped: true };
    tokens.push(token);
  }
  return { tokens, stopped: false };
}
