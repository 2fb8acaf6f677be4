import { randomInt } from "node:crypto";

/**
 * Canary prompts: drawn from templates with random parts, so an agent cannot learn a fixed list
 * and answer only those honestly. Shaped like ordinary chat traffic (one user turn, a short
 * answer).
 */
const topics = [
  "the ocean at night",
  "a lighthouse keeper",
  "why bread rises",
  "how bees find flowers",
  "the first snow of winter",
  "a train crossing a desert",
  "how a compass works",
  "a quiet library",
  "the moon's phases",
  "a market in the morning",
  "why leaves change colour",
  "a violin being tuned",
];
const forms = [
  "Write two sentences about {topic}.",
  "Describe {topic} in one short paragraph.",
  "In three sentences, explain {topic} to a child.",
  "Give a short, vivid description of {topic}.",
];
const words = [
  "amber",
  "basalt",
  "cobalt",
  "delta",
  "ember",
  "fjord",
  "granite",
  "harbor",
  "indigo",
  "juniper",
  "kestrel",
  "lagoon",
  "meadow",
  "nickel",
  "orchid",
  "pepper",
];

const pick = <T>(items: readonly T[]): T => items[randomInt(items.length)] as T;

export interface CanaryPrompt {
  text: string;
  /** A known answer the reply must contain; absent when a reference source answers instead. */
  expected?: string;
}

/** An open prompt, answered by the model and by a trusted source of the same model to compare. */
export function openPrompt(): CanaryPrompt {
  return { text: pick(forms).replace("{topic}", pick(topics)) };
}

/** A prompt with a known answer any working model gives: catches agents that run no model at all. */
export function knownAnswerPrompt(): CanaryPrompt {
  const phrase = [pick(words), pick(words), pick(words)].join(" ");
  return { text: `Repeat exactly this phrase and nothing else: ${phrase}`, expected: phrase };
}
