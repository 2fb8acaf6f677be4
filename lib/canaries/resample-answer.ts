import { z } from "zod";
import type { Dialect } from "../dialects/dialect";
import { log } from "../log";
import { costOfUsage, emptyUsage } from "../pricing/cost";
import type { Candidate } from "../providers/candidate";

/**
 * The check for a reference that offers no log-probabilities (an Anthropic-format source, an
 * upstream without `echo`): the reference answers the job's own request again, `samples` times,
 * and the host's answer is compared with its samples (lib/verification/resample-evidence.ts).
 * The request is the job's as the reference's format writes it, with every sampling setting
 * kept; only a greedy job is sampled at `temperature` (the scoring floor), so an honest greedy
 * host on other hardware is compared with samples at least as varied as its own answer. An
 * OpenAI-format reference is asked for all samples at once (`n`: one prefill); an Anthropic one,
 * which has no `n`, once per sample.
 */
const samplingTimeoutMs = 60_000;

/** Bounded: a choice's text at most a few megabytes, counts within the meter's bounds. */
const text = z.string().max(4_000_000);
const count = z.number().int().min(0).max(100_000_000);
const openaiReply = z.object({
  choices: z
    .array(z.object({ message: z.object({ content: text.nullable().optional() }) }))
    .min(1)
    .max(64),
  usage: z.object({ prompt_tokens: count, completion_tokens: count }).optional(),
});
const anthropicReply = z.object({
  content: z.array(z.object({ type: z.string().max(64), text: text.optional() })).max(1024),
  usage: z
    .object({
      input_tokens: count,
      output_tokens: count,
      cache_read_input_tokens: count.nullable().optional(),
      cache_creation_input_tokens: count.nullable().optional(),
    })
    .optional(),
});

export interface ReferenceSamples {
  texts: string[];
  /** What the samples cost at the reference's price, microunits. */
  cost: bigint;
}

interface ParsedReply {
  texts: string[];
  inputTokens: number;
  outputTokens: number;
}

function parseReply(dialect: Dialect, body: unknown): ParsedReply | undefined {
  if (dialect === "openai") {
    const parsed = openaiReply.safeParse(body);
    if (!parsed.success) return undefined;
    return {
      texts: parsed.data.choices.map((choice) => choice.message.content ?? ""),
      inputTokens: parsed.data.usage?.prompt_tokens ?? 0,
      outputTokens: parsed.data.usage?.completion_tokens ?? 0,
    };
  }
  const parsed = anthropicReply.safeParse(body);
  if (!parsed.success) return undefined;
  const usage = parsed.data.usage;
  return {
    texts: [
      parsed.data.content
        .filter((block) => block.type === "text")
        .map((block) => block.text ?? "")
        .join(""),
    ],
    // Cached and cache-written prompt tokens are billed too; counted at the input price (an upper bound).
    inputTokens:
      (usage?.input_tokens ?? 0) +
      (usage?.cache_read_input_tokens ?? 0) +
      (usage?.cache_creation_input_tokens ?? 0),
    outputTokens: usage?.output_tokens ?? 0,
  };
}

/** The job's request (already in the reference's format and model) as one sampling request of `n` answers. */
function samplingBody(
  dialect: Dialect,
  request: Record<string, unknown>,
  temperature: number,
  n: number,
): Record<string, unknown> {
  const { stream: _stream, stream_options: _options, ...rest } = request;
  return dialect === "openai"
    ? { ...rest, temperature, n, stream: false }
    : { ...rest, temperature, stream: false };
}

async function ask(reference: Candidate, body: Record<string, unknown>): Promise<ParsedReply | undefined> {
  const response = await reference.dispatch(JSON.stringify(body), {
    signal: AbortSignal.timeout(samplingTimeoutMs),
    forwardHeaders: {},
  });
  const raw = await response.text();
  if (!response.ok) {
    log.info("reference could not sample an answer", {
      provider: reference.providerId,
      status: response.status,
    });
    return undefined;
  }
  try {
    return parseReply(reference.dialect, JSON.parse(raw));
  } catch {
    return undefined;
  }
}

/**
 * Up to `samples` answers of the reference to the job's request (`request`: in the reference's
 * format, for its model), and what the ones it gave cost (booked whether or not they are enough).
 */
export async function referenceSamples(
  reference: Candidate,
  request: Record<string, unknown>,
  temperature: number,
  samples: number,
): Promise<ReferenceSamples> {
  const replies =
    reference.dialect === "openai"
      ? [await ask(reference, samplingBody("openai", request, temperature, samples))]
      : await Promise.all(
          Array.from({ length: samples }, () =>
            ask(reference, samplingBody("anthropic", request, temperature, 1)),
          ),
        );
  let inputTokens = 0;
  let outputTokens = 0;
  const texts: string[] = [];
  for (const reply of replies) {
    if (!reply) continue;
    inputTokens += reply.inputTokens;
    outputTokens += reply.outputTokens;
    texts.push(...reply.texts);
  }
  return {
    texts: texts.slice(0, samples),
    cost: costOfUsage({ ...emptyUsage, inputTokens, outputTokens }, reference.price),
  };
}
