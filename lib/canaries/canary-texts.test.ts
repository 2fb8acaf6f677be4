import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { corpusEntries, corpusTurn, inventedTexts, inventionPrompt } from "./canary-texts";

const slots = [
  { $text: "system", chars: 30 },
  { $text: "user", chars: 20 },
] as const;

describe("canary texts", () => {
  it("read a trusted source's JSON array, fitted to each slot's length", () => {
    const long = "First sentence here. Second sentence is much longer than the slot wants it to be.";
    const texts = inventedTexts(`Sure! ["${long}", "How do tides work?"]`, slots);
    expect(texts).toEqual(["First sentence here.", "How do tides work?"]);
  });

  it("read prose when the source ignored the format, and nothing from an empty reply", () => {
    const texts = inventedTexts("You help farmers plan crops. What should I plant in May?", slots);
    expect(texts?.length).toBe(2);
    expect(texts?.every((text) => text.length > 0)).toBe(true);
    expect(inventedTexts("   ", slots)).toBeUndefined();
  });

  it("ask for every slot, in order, with a new variant each time", () => {
    const prompt = inventionPrompt(slots);
    expect(prompt).toMatch(/exactly 2 strings/);
    expect(prompt).toMatch(
      /1\. the system prompt .* about 30 characters\n2\. a message from the application's user, about 20/,
    );
    expect(inventionPrompt(slots)).not.toBe(prompt);
  });

  it("draw user turns from the operator's corpus file, in any of its line forms, closest in length", () => {
    const folder = mkdtempSync(join(tmpdir(), "canary-corpus-"));
    const path = join(folder, "prompts.jsonl");
    writeFileSync(
      path,
      [
        '"a JSON string prompt"',
        '{"instruction": "an instruction field, rather longer than the others in this file"}',
        '{"id": 3, "prompt": "short"}',
        "plain text line",
        "",
        "{not json",
      ].join("\n"),
    );
    const entries = corpusEntries(path);
    expect(entries).toEqual([
      "a JSON string prompt",
      "an instruction field, rather longer than the others in this file",
      "short",
      "plain text line",
      "{not json",
    ]);
    const picks = Array.from({ length: 50 }, () => corpusTurn(entries, 60));
    expect(picks).toContain("an instruction field, rather longer than the others in this file");
    expect(corpusEntries(undefined)).toEqual([]);
    expect(corpusTurn([], 10)).toBeUndefined();
  });
});
