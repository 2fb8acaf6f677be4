import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { log } from "../log";
import type { TextSlot } from "./job-shapes";

/**
 * The words of a canary (issue 31, item 1): nothing in the source says what a canary asks, so no
 * agent can list canary prompts. Two sources, mixed at run time:
 *
 * - the operator's corpus (CANARY_CORPUS_PATH): a file of prompts kept off the repository, one a
 *   line (a JSON string, a JSON object with a `prompt`, `instruction`, `text` or `question`
 *   field, or plain text), for instance an open prompt dataset exported to JSON lines; user turns
 *   are drawn from it, each the entry closest in length to the real turn it imitates among a few
 *   drawn at random;
 * - a trusted centralized source of the model, asked to invent the rest (system prompts,
 *   assistant turns, and user turns when there is no corpus) for this one canary, as one JSON
 *   array, so every canary's words are new.
 */

/** Entries and bytes read from the corpus file: bounded whatever file it names. */
const maxEntries = 200_000;
const maxBytes = 64 * 1024 * 1024;
/** Corpus entries drawn per user turn, the closest in length kept. */
const drawsPerTurn = 8;

let corpus: { path: string; entries: string[] } | undefined;

function entryText(line: string): string | undefined {
  const trimmed = line.trim();
  if (trimmed === "") return undefined;
  if (!trimmed.startsWith("{") && !trimmed.startsWith('"')) return trimmed;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (typeof parsed === "string") return parsed.trim() || undefined;
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const record = parsed as Record<string, unknown>;
    for (const field of ["prompt", "instruction", "text", "question"]) {
      const value = record[field];
      if (typeof value === "string" && value.trim() !== "") return value.trim();
    }
    return undefined;
  } catch {
    return trimmed;
  }
}

/** The corpus entries, read once per path; empty when unset or unreadable (logged). */
export function corpusEntries(path: string | undefined): readonly string[] {
  if (path === undefined) return [];
  if (corpus?.path === path) return corpus.entries;
  let entries: string[] = [];
  try {
    const text = readFileSync(path, "utf8").slice(0, maxBytes);
    for (const line of text.split("\n")) {
      const entry = entryText(line);
      if (entry !== undefined) entries.push(entry);
      if (entries.length >= maxEntries) break;
    }
  } catch (error) {
    log.error("could not read the canary corpus", { path, error });
    entries = [];
  }
  corpus = { path, entries };
  return entries;
}

/** A corpus entry about `chars` long: the closest of a few drawn at random. */
export function corpusTurn(entries: readonly string[], chars: number): string | undefined {
  let best: string | undefined;
  for (let draw = 0; draw < drawsPerTurn && entries.length > 0; draw += 1) {
    const entry = entries[randomInt(entries.length)] ?? "";
    if (best === undefined || Math.abs(entry.length - chars) < Math.abs(best.length - chars)) best = entry;
  }
  return best;
}

const describe: Record<TextSlot["$text"], string> = {
  system: "the system prompt a developer wrote for their application",
  developer: "the developer instructions of the application",
  user: "a message from the application's user",
  assistant: "the assistant's earlier reply in the conversation",
};

/** The request that asks a trusted source to invent the texts of `slots`, as one JSON array. */
export function inventionPrompt(slots: readonly TextSlot[]): string {
  const list = slots
    .map((slot, index) => `${index + 1}. ${describe[slot.$text]}, about ${slot.chars} characters`)
    .join("\n");
  return [
    "Invent one realistic request that an application sends to a chat model: pick the kind of application, its users and the subject at random, and write the way real developers and users write (not as an example or a test).",
    `Answer with a JSON array of exactly ${slots.length} strings and nothing else, in this order:`,
    list,
    `(variant ${randomInt(1_000_000)})`,
  ].join("\n");
}

/** Cuts a text to about `chars`, at the last sentence or word end before 1.5 times that. */
function fitted(text: string, chars: number): string {
  const limit = Math.max(Math.ceil(chars * 1.5), 1);
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  const sentence = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf("? "), cut.lastIndexOf("! "));
  if (sentence >= chars / 2) return cut.slice(0, sentence + 1);
  const word = cut.lastIndexOf(" ");
  return word > 0 ? cut.slice(0, word) : cut;
}

/**
 * The texts for `slots` from what the trusted source answered: its JSON array when it gave one of
 * the right length, else its reply cut into pieces (a source that does not follow the format still
 * writes words no agent has seen). Undefined when it wrote nothing usable.
 */
export function inventedTexts(reply: string, slots: readonly TextSlot[]): string[] | undefined {
  const start = reply.indexOf("[");
  const end = reply.lastIndexOf("]");
  if (start !== -1 && end > start) {
    try {
      const parsed: unknown = JSON.parse(reply.slice(start, end + 1));
      if (
        Array.isArray(parsed) &&
        parsed.length === slots.length &&
        parsed.every((item) => typeof item === "string" && item.trim() !== "")
      )
        return (parsed as string[]).map((text, index) => fitted(text.trim(), slots[index]?.chars ?? 0));
    } catch {
      // Not JSON after all: read as prose below.
    }
  }
  const pieces = reply
    .split(/\n\s*\n|(?<=[.!?])\s+/)
    .map((piece) => piece.trim())
    .filter((piece) => piece !== "");
  if (pieces.length === 0) return undefined;
  return slots.map((slot, index) => {
    let text = pieces[index % pieces.length] ?? "";
    for (let next = index + 1; text.length < slot.chars && next < index + pieces.length; next += 1)
      text = `${text} ${pieces[next % pieces.length] ?? ""}`;
    return fitted(text, slot.chars);
  });
}
