import { describe, expect, it } from "vitest";
import { describeChange } from "./describe-change";

describe("describeChange", () => {
  it("names each field that changed, before and after", () => {
    const before = { upstream_model_id: "gpt-4o-mini", input_per_1m: "150000", output_per_1m: "600000" };
    const after = { upstream_model_id: "gpt-4o-mini", input_per_1m: "1000000", output_per_1m: "600000" };
    expect(describeChange(before, after)).toBe("input_per_1m: 150000 → 1000000");
    expect(describeChange(JSON.stringify(before), JSON.stringify(after))).toBe(
      "input_per_1m: 150000 → 1000000",
    );
  });

  it("lists every field of something new, and nothing for an unreadable row", () => {
    expect(describeChange(null, { name: "Aion 2" })).toBe("name: Aion 2");
    expect(describeChange(null, "not json")).toBe("");
  });
});
