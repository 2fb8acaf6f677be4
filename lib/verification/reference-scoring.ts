import { z } from "zod";
import type { ScoredPosition } from "./answer-evidence";

/**
 * Teacher-forced scoring of a host's answer by the reference: one request to a trusted source of
 * the same open weights, in the OpenAI chat format, whose last message is the host's answer as the
 * assistant's, continued rather than closed (vLLM's `continue_final_message`), echoed with
 * log-probabilities (`echo`, `logprobs`, `top_logprobs`), and one token generated after it. The
 * reference answers in the completions `logprobs` shape: each echoed token, its log-probability
 * and its top alternatives, then the generated token's alternatives (where the end token's chance
 * is read: the answer's stop is scored too).
 */
const scoringAlternatives = 5;

/** End-of-turn tokens as the common open-weights templates spell them. */
const endTokens = new Set([
  "<|im_end|>",
  "<|eot_id|>",
  "<|end|>",
  "</s>",
  "<|endoftext|>",
  "<end_of_turn>",
  "<|eom_id|>",
]);

export function scoringRequest(forwarded: Record<string, unknown>, answer: string): Record<string, unknown> {
  const messages = Array.isArray(forwarded.messages) ? forwarded.messages : [];
  return {
    model: forwarded.model,
    messages: [...messages, { role: "assistant", content: answer }],
    add_generation_prompt: false,
    continue_final_message: true,
    echo: true,
    logprobs: true,
    top_logprobs: scoringAlternatives,
    max_tokens: 1,
    temperature: 0,
    stream: false,
  };
}

/** Bounded: a log-probability is a finite number at most 0; a token a short string. */
const logprob = z.number().min(-1e4).max(0);
const scoringResponse = z.object({
  choices: z
    .array(
      z.object({
        logprobs: z.object({
          tokens: z.array(z.string().max(256)).max(200_000),
          token_logprobs: z.array(logprob.nullable()).max(200_000),
          top_logprobs: z.array(z.record(z.string().max(256), logprob).nullable()).max(200_000),
        }),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number().int().min(0).max(10_000_000) }).optional(),
});

export interface ScoredAnswer {
  positions: ScoredPosition[];
  /** Tokens the reference read (prompt and answer): what scoring cost. */
  promptTokens: number;
}

function alternatives(top: Record<string, number> | null | undefined): { top: number[]; end?: number } {
  const values: number[] = [];
  let end: number | undefined;
  for (const [token, value] of Object.entries(top ?? {})) {
    if (endTokens.has(token)) end = end === undefined ? value : Math.max(end, value);
    else values.push(value);
  }
  return end === undefined ? { top: values } : { top: values, end };
}

/**
 * The host's answer, position by position, from the reference's reply; undefined when the reply is
 * not the shape asked for or does not end with the answer. The host ended its answer itself when it
 * is shorter than `maxTokens` in the model's own tokens (the reference's echo counts them, where
 * the gateway's meter uses another tokenizer): then the stop after it is scored as a position too.
 */
export function parseScoring(body: unknown, answer: string, maxTokens: number): ScoredAnswer | undefined {
  const parsed = scoringResponse.safeParse(body);
  if (!parsed.success) return undefined;
  const {
    tokens,
    token_logprobs: logprobs,
    top_logprobs: tops,
  } = parsed.data.choices[0]?.logprobs ?? {
    tokens: [],
    token_logprobs: [],
    top_logprobs: [],
  };
  if (tokens.length < 2 || logprobs.length !== tokens.length || tops.length !== tokens.length)
    return undefined;
  // The last token was generated after the answer; the answer's tokens end just before it.
  const echoed = tokens.length - 1;
  let start = echoed;
  let covered = "";
  while (start > 0 && covered.length < answer.length) {
    start -= 1;
    covered = `${tokens[start]}${covered}`;
  }
  if (!covered.endsWith(answer.slice(-Math.min(answer.length, 64))) || start === 0) return undefined;
  const positions: ScoredPosition[] = [];
  for (let index = start; index < echoed; index += 1) {
    const value = logprobs[index];
    if (value === null || value === undefined) return undefined;
    positions.push({ logprob: value, ...alternatives(tops[index]) });
  }
  if (echoed - start < maxTokens) {
    const after = alternatives(tops[echoed]);
    // The end token's chance is known when it is among the alternatives; otherwise it is below
    // the least of them, and that bound (a larger chance than the truth) is what is scored.
    const stop = after.end ?? Math.min(...after.top);
    if (Number.isFinite(stop)) positions.push({ logprob: stop, top: after.top, stop: true });
  }
  return { positions, promptTokens: parsed.data.usage?.prompt_tokens ?? tokens.length };
}
