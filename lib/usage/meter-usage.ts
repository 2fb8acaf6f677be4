import type { UsageClaim } from "../dialects/usage/usage-claim";
import { emptyUsage, type Usage } from "../pricing/cost";
import { countPromptTokens } from "./count-prompt";
import type { RelayedContent } from "./relayed-content";
import { countTokens, loadedTokenizer } from "./tokenizer";

/**
 * The gateway is the meter. A reply's claimed usage is checked against what the gateway
 * forwarded and relayed, and no bill ever exceeds the limits the hold was sized for.
 *
 * - Counts: o200k BPE tokens of the prompt the gateway sent (./count-prompt.ts) and of the
 *   content it relayed. For model families whose tokenizer ships nowhere (Anthropic's), the
 *   count is an estimate: o200k's count times {@link estimateFactor}.
 * - Tolerance: a claim is accepted when it is at most {@link tolerance} above the count
 *   (tokenizers and chat templates differ); a lower claim is accepted as it is, since it can only
 *   cost the host that made it. Beyond the tolerance the count is billed and the claim is a
 *   finding against the host.
 * - Sources: marketplace agents are always checked. Centralized upstreams and key relays are
 *   the vendors' own APIs at addresses the gateway chose; their claims are taken within the
 *   caps without counting (the hot path), and counted only when a claim is missing or refused.
 * - Caps: output at most the forwarded limit times `n`; input at most the prompt estimate the
 *   hold priced (cheapest-priced part kept last), so the charge never exceeds the hold.
 */
const tolerance = {
  /** Relative slack on the count. */
  factor: 1.25,
  /** Absolute slack on input: chat templates add tokens (system headers, date lines) the body does not show. */
  inputTokens: 64,
  /** Absolute slack on output: end-of-turn tokens, tool-call framing. */
  outputTokens: 16,
} as const;

/** Tokens per o200k token assumed for tokenizers the gateway does not have. */
export const estimateFactor = 1.25;

/** Tokens of framing per tool call beyond its name and arguments. */
const toolCallTokens = 3;

export type TokenizerFamily = "o200k" | "estimated";

export interface MeterInput {
  family: TokenizerFamily;
  /** Marketplace agents are not: their every claim is checked. */
  trusted: boolean;
  /** The body the gateway sent upstream. */
  forwardedBody: string;
  /** Its prompt tokens, counted once for a stream metered many times (its running counts); else counted here. */
  promptTokens?: () => Promise<number>;
  /** The prompt tokens the hold priced: the most input ever billed. */
  maxInputTokens: number;
  /** The output limit forwarded, times `n`: the most output ever billed. */
  maxOutputTokens: number;
  claim: UsageClaim;
  /** What was relayed: read only when the gateway counts. */
  content(): RelayedContent;
  /** A marketplace agent's own counts (its job_done): checked like a claim, never billed. */
  agentTokens?: Record<string, number> | undefined;
}

type MeterFindingKind = "over_claim" | "invalid_claim" | "over_limit";

export interface MeterFinding {
  kind: MeterFindingKind;
  /** In words, for the host and the operator. */
  detail: string;
}

export interface MeteredUsage {
  usage: Usage;
  /** The gateway counted tokens (a claim was checked or missing). */
  counted: boolean;
  findings: MeterFinding[];
  /**
   * A trusted source's claim beyond what is billed (the caps cut it): the vendor bills the
   * operator for it all the same, so the settlement books it as upstream excess. Empty for
   * marketplace agents, whose over-claims are findings the gateway never pays.
   */
  excess: Usage;
}

function upper(count: number, slack: number): number {
  return Math.ceil(count * tolerance.factor) + slack;
}

function totalInput(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** Brings input within `max`, giving up the dearest-priced part first (plain input, then cache writes, then reads). */
function capInput(usage: Usage, max: number): Usage {
  let excess = totalInput(usage) - max;
  if (excess <= 0) return usage;
  const capped = { ...usage };
  for (const key of ["inputTokens", "cacheWriteTokens", "cacheReadTokens"] as const) {
    const cut = Math.min(capped[key], excess);
    capped[key] -= cut;
    excess -= cut;
  }
  return capped;
}

export async function meterUsage(input: MeterInput): Promise<MeteredUsage> {
  const { claim } = input;
  const cap = (usage: Usage): Usage => ({
    ...capInput(usage, input.maxInputTokens),
    outputTokens: Math.min(usage.outputTokens, input.maxOutputTokens),
  });
  if (input.trusted && claim.type === "read" && claim.outputReported) {
    const usage = cap(claim.usage);
    return { usage, counted: false, findings: [], excess: excessOf(claim, usage) };
  }

  const scale = (tokens: number) =>
    input.family === "estimated" ? Math.ceil(tokens * estimateFactor) : tokens;
  const content = input.content();
  const countedOutput = scale((await countTokens(content.text())) + toolCallTokens * content.toolCalls);
  let promptCount: number | undefined;
  const countedInput = async () => {
    promptCount ??= scale(await (input.promptTokens?.() ?? countPromptTokens(input.forwardedBody)));
    return promptCount;
  };
  const findings: MeterFinding[] = [];
  let usage: Usage;
  if (claim.type === "read") {
    usage = { ...claim.usage };
    const outputBound = upper(countedOutput, tolerance.outputTokens);
    if (!claim.outputReported) usage.outputTokens = countedOutput;
    else if (!input.trusted && claim.usage.outputTokens > outputBound) {
      findings.push({
        kind: "over_claim",
        detail: `claimed ${claim.usage.outputTokens} output tokens; the gateway counted ${countedOutput} in what it relayed (accepted up to ${outputBound})`,
      });
      usage.outputTokens = countedOutput;
    }
    if (!input.trusted) {
      const prompt = await countedInput();
      const inputBound = upper(prompt, tolerance.inputTokens);
      if (totalInput(claim.usage) > inputBound) {
        findings.push({
          kind: "over_claim",
          detail: `claimed ${totalInput(claim.usage)} input tokens; the gateway counted ${prompt} in the prompt it sent (accepted up to ${inputBound})`,
        });
        usage = { ...usage, inputTokens: prompt, cacheReadTokens: 0, cacheWriteTokens: 0 };
      }
    }
  } else {
    usage = { ...emptyUsage, inputTokens: await countedInput(), outputTokens: countedOutput };
    if (claim.type === "invalid" && !input.trusted)
      findings.push({ kind: "invalid_claim", detail: `refused usage figure (${claim.reason})` });
  }
  const agentOutput = agentOutputClaim(input.agentTokens);
  if (
    !input.trusted &&
    agentOutput !== undefined &&
    agentOutput > upper(countedOutput, tolerance.outputTokens)
  )
    findings.push({
      kind: "over_claim",
      detail: `job_done claimed ${agentOutput} output tokens; the gateway counted ${countedOutput} in what it relayed`,
    });
  const limitBound = outputBound(input.maxOutputTokens);
  if (!input.trusted && countedOutput > limitBound)
    findings.push({
      kind: "over_limit",
      detail: `relayed about ${countedOutput} output tokens where the forwarded limit was ${input.maxOutputTokens}`,
    });
  const billed = cap(usage);
  return {
    usage: billed,
    counted: true,
    findings,
    excess: input.trusted && claim.type === "read" ? excessOf(claim, billed) : emptyUsage,
  };
}

/** What a claim reported beyond the bill, part by part (output only once the claim has it). */
function excessOf(claim: UsageClaim & { type: "read" }, billed: Usage): Usage {
  const beyond = (claimed: number, kept: number) => Math.max(0, claimed - kept);
  return {
    inputTokens: beyond(claim.usage.inputTokens, billed.inputTokens),
    outputTokens: claim.outputReported ? beyond(claim.usage.outputTokens, billed.outputTokens) : 0,
    cacheReadTokens: beyond(claim.usage.cacheReadTokens, billed.cacheReadTokens),
    cacheWriteTokens: beyond(claim.usage.cacheWriteTokens, billed.cacheWriteTokens),
  };
}

/** The output count in an agent's job_done `tokens`, under any of the names agents use. */
function agentOutputClaim(tokens: Record<string, number> | undefined): number | undefined {
  if (!tokens) return undefined;
  return tokens.output ?? tokens.output_tokens ?? tokens.completion_tokens;
}

/** Model families whose tokenizer ships nowhere the gateway can load it: counted as an estimate. */
const estimatedOwners = new Set(["anthropic", "google"]);

export function tokenizerFamilyOf(model: { ownedBy: string }): TokenizerFamily {
  return estimatedOwners.has(model.ownedBy) ? "estimated" : "o200k";
}

/** The bound a relayed stream's output may reach before it is cut: the limit with the output tolerance. */
export function outputBound(limit: number): number {
  return upper(limit, tolerance.outputTokens);
}

/**
 * A stream's usage so far, for the running count journaled while it relays (billed only if the
 * process dies mid-stream): the meter's own figures, so a replayed stream bills what live
 * metering would. Only while the tokenizer is still loading (its first use in this process) is
 * it an estimate: the claim so far within the caps, else about four bytes a token.
 */
export async function meterRunningUsage(input: MeterInput): Promise<Pick<MeteredUsage, "usage" | "excess">> {
  const { claim } = input;
  const claimed = input.trusted && claim.type === "read" && claim.outputReported;
  if (claimed || loadedTokenizer()) return meterUsage(input);
  const usage =
    claim.type === "read"
      ? { ...claim.usage, outputTokens: Math.ceil(input.content().bytes / 4) }
      : {
          ...emptyUsage,
          inputTokens: Math.ceil(Buffer.byteLength(input.forwardedBody) / 4),
          outputTokens: Math.ceil(input.content().bytes / 4),
        };
  return {
    usage: {
      ...capInput(usage, input.maxInputTokens),
      outputTokens: Math.min(usage.outputTokens, input.maxOutputTokens),
    },
    excess: emptyUsage,
  };
}
