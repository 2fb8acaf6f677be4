import { describe, expect, it } from "vitest";
import { parseDepositCode } from "./deposit-code";

describe("parseDepositCode", () => {
  it("reads a token code or a bond code, trimmed and case-folded", () => {
    expect(parseDepositCode(["  0123456789ABCDEF\n"])).toEqual({ kind: "token", code: "0123456789abcdef" });
    expect(parseDepositCode(["pod-bond-abcd2345"])).toEqual({ kind: "bond", code: "POD-BOND-ABCD2345" });
  });

  it("skips memos that are not codes, and names why nothing matched", () => {
    expect(parseDepositCode(["thanks!", "0123456789abcdef"])).toEqual({
      kind: "token",
      code: "0123456789abcdef",
    });
    expect(parseDepositCode(["0123456789abcdef", "0123456789ABCDEF"])).toEqual({
      kind: "token",
      code: "0123456789abcdef",
    });
    expect(parseDepositCode([])).toEqual({ reason: "no_memo" });
    expect(parseDepositCode(["hello", "0123456789abcde"])).toEqual({ reason: "invalid_code" });
    // O and 1 are not in the bond alphabet.
    expect(parseDepositCode(["POD-BOND-ABCDEFO1"])).toEqual({ reason: "invalid_code" });
    expect(parseDepositCode(["0123456789abcdef", "fedcba9876543210"])).toEqual({ reason: "ambiguous_code" });
  });
});
