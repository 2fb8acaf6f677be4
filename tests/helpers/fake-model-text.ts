import {
  endToken,
  generate,
  logSoftmax,
  type ModelSpec,
  modelLogits,
  stream,
} from "../../bench/verification/fake-model";

/**
 * The simulation's fake model (bench/verification/fake-model.ts) as text, for the answer checks
 * over the real job path: a hostile agent answers from it (or from its smaller sibling) and the
 * fake upstream scores answers under it in the wire format a reference uses. Token `k` is the word
 * `w<k>`; an answer is its words joined by spaces; the prompt seeds the model through a hash of
 * its turns (the system prompt and each message's role and text), the same in either format, so
 * a job translated between OpenAI's and Anthropic's format is the same prompt to the model.
 */
export const referenceModel: ModelSpec = { seed: 7001, scale: 3.5 };
export const smallerModel: ModelSpec = { seed: 9103, scale: 3.5, family: { seed: 7001, deviation: 0.55 } };
const endText = "<|im_end|>";

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) =>
      typeof part === "object" && part !== null && "text" in part && typeof part.text === "string"
        ? part.text
        : "",
    )
    .join("");
}

/** A request's turns as [role, text], whichever format it is in (a system prompt is the first turn). */
function turnsOf(request: { system?: unknown; messages?: unknown }): string[][] {
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const system = textOf(request.system);
  return [
    ...(system === "" ? [] : [["system", system]]),
    ...messages.map((message: { role?: unknown; content?: unknown }) => [
      String(message.role),
      textOf(message.content),
    ]),
  ];
}

function promptSeed(request: { system?: unknown; messages?: unknown }): number {
  let hash = 0x811c9dc5;
  for (const char of JSON.stringify(turnsOf(request)))
    hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash >>> 0;
}

function tokenText(token: number, first: boolean): string {
  if (token === endToken) return endText;
  return first ? `w${token}` : ` w${token}`;
}

/** An answer from `model` to this request (its system prompt and messages) at `temperature`, as text, and whether it stopped. */
export function answerFrom(
  model: ModelSpec,
  request: { system?: unknown; messages?: unknown },
  temperature: number,
  maxTokens: number,
  seed: number,
): { text: string; tokens: number; stopped: boolean } {
  const answer = generate(model, promptSeed(request), temperature, maxTokens, 0.15, stream(seed));
  return {
    text: answer.tokens.map((token, index) => tokenText(token, index === 0)).join(""),
    tokens: answer.tokens.length,
    stopped: answer.stopped,
  };
}

function tokensOf(text: string): number[] | undefined {
  const words = text.trim().split(/\s+/);
  const tokens = words.map((word) => Number(/^w(\d+)$/.exec(word)?.[1] ?? Number.NaN));
  return tokens.every((token) => Number.isInteger(token) && token >= 0 && token < endToken)
    ? tokens
    : undefined;
}

/**
 * The reference's teacher-forced reply to a scoring request (messages ending with the answer as
 * the assistant's, echoed with log-probabilities and one token generated): the completions
 * `logprobs` shape, with the template's tokens before the answer. Undefined when the answer is
 * not the fake model's text.
 */
export function scoringReply(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last = messages.at(-1) as { role?: unknown; content?: unknown } | undefined;
  if (last?.role !== "assistant" || typeof last.content !== "string") return undefined;
  const answer = tokensOf(last.content);
  if (!answer) return undefined;
  const prompt = promptSeed({ ...body, messages: messages.slice(0, -1) });
  const top = Number(body.top_logprobs ?? 5);
  const tokens = ["<|im_start|>", "assistant", "\n"];
  const tokenLogprobs: Array<number | null> = [null, -0.01, -0.01];
  const topLogprobs: Array<Record<string, number> | null> = [null, { assistant: -0.01 }, { "\n": -0.01 }];
  let generated = "";
  for (let index = 0; index <= answer.length; index += 1) {
    const logprobs = logSoftmax(modelLogits(referenceModel, { prompt, previous: answer, length: index }));
    const ranked = logprobs
      .map((logprob, token) => ({ logprob, token }))
      .sort((a, b) => b.logprob - a.logprob)
      .slice(0, top);
    const alternatives = Object.fromEntries(
      ranked.map((entry) => [tokenText(entry.token, index === 0), entry.logprob]),
    );
    const token = answer[index];
    if (token === undefined) {
      generated = tokenText(ranked[0]?.token ?? endToken, false);
      tokens.push(generated);
      tokenLogprobs.push(ranked[0]?.logprob ?? 0);
    } else {
      tokens.push(tokenText(token, index === 0));
      tokenLogprobs.push(logprobs[token] ?? -100);
    }
    topLogprobs.push(alternatives);
  }
  let offset = 0;
  const textOffset = tokens.map((token) => {
    const at = offset;
    offset += token.length;
    return at;
  });
  return {
    id: "chatcmpl-scoring",
    object: "chat.completion",
    model: body.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: generated },
        logprobs: {
          tokens,
          token_logprobs: tokenLogprobs,
          top_logprobs: topLogprobs,
          text_offset: textOffset,
        },
        finish_reason: "length",
      },
    ],
    usage: { prompt_tokens: tokens.length - 1, completion_tokens: 1, total_tokens: tokens.length },
  };
}
