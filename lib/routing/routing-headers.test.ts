import { describe, expect, it } from "vitest";
import { GatewayError } from "../errors/gateway-error";
import { isWithinCeilings, parsePriceCeilings } from "./price-ceilings";
import { checkPinsKnown, parseProviderPins } from "./provider-pins";
import { parseRoutingHeaders } from "./route-request";
import { parseRoutingMode } from "./routing-mode";

const headers = (values: Record<string, string>) => new Headers(values);
const providerId = "0b9d3b8e-2f0a-4c1e-9a4b-5d6e7f809102";

function rejection(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected a GatewayError");
}

describe("price ceiling headers", () => {
  it.each([
    ["no headers", {}, {}],
    ["an input ceiling", { "X-Pod-Max-Price-Input": "500000" }, { inputPer1m: 500000n }],
    ["a zero output ceiling with spaces", { "X-Pod-Max-Price-Output": " 0 " }, { outputPer1m: 0n }],
    [
      "both",
      { "X-Pod-Max-Price-Input": "1", "X-Pod-Max-Price-Output": "2" },
      { inputPer1m: 1n, outputPer1m: 2n },
    ],
    ["an empty value", { "X-Pod-Max-Price-Input": "" }, {}],
  ])("%s", (_name, values, expected) => {
    expect(parsePriceCeilings(headers(values))).toEqual(expected);
  });

  it.each(["-1", "1.5", "1e6", "abc", "0x10", "1 000", "1234567890123456789"])("%s is a 400", (value) => {
    const error = rejection(() => parsePriceCeilings(headers({ "X-Pod-Max-Price-Output": value })));
    expect(error.status).toBe(400);
    expect(error.param).toBe("X-Pod-Max-Price-Output");
  });

  it.each([
    ["no ceilings", 100n, 200n, {}, true],
    ["prices equal to both ceilings", 100n, 200n, { inputPer1m: 100n, outputPer1m: 200n }, true],
    ["input above its ceiling", 101n, 200n, { inputPer1m: 100n }, false],
    ["output above its ceiling", 100n, 201n, { outputPer1m: 200n }, false],
  ])("%s", (_name, inputPer1m, outputPer1m, ceilings, expected) => {
    expect(isWithinCeilings({ inputPer1m, outputPer1m }, ceilings)).toBe(expected);
  });
});

describe("routing mode header", () => {
  it.each([
    [undefined, "auto"],
    ["", "auto"],
    ["auto", "auto"],
    ["marketplace-only", "marketplace-only"],
    ["Centralized-Only", "centralized-only"],
  ])("%s → %s", (value, expected) => {
    expect(parseRoutingMode(headers(value === undefined ? {} : { "X-Pod-Routing-Mode": value }))).toBe(
      expected,
    );
  });
  it.each(["cheapest", "marketplace", "auto,centralized-only"])("%s is a 400", (value) => {
    expect(rejection(() => parseRoutingMode(headers({ "X-Pod-Routing-Mode": value }))).status).toBe(400);
  });
});

describe("provider pins header", () => {
  it.each([
    ["openai", [{ kind: "centralized", name: "openai" }]],
    [
      " OpenRouter , openai,,openrouter",
      [
        { kind: "centralized", name: "openrouter" },
        { kind: "centralized", name: "openai" },
      ],
    ],
    [
      `${providerId.toUpperCase()},venice`,
      [
        { kind: "provider-id", id: providerId },
        { kind: "centralized", name: "venice" },
      ],
    ],
    ["bedrock", [{ kind: "centralized", name: "bedrock" }]],
  ])("%s parses in order", (value, expected) => {
    expect(parseProviderPins(headers({ "X-Pod-Providers": value }))).toEqual(expected);
  });

  it("blank means no pin", () => {
    expect(parseProviderPins(headers({ "X-Pod-Providers": " , " }))).toBeUndefined();
  });

  it("an unknown name is a 400 listing the valid names", () => {
    const error = rejection(() => parseProviderPins(headers({ "X-Pod-Providers": "openai,opnai" })));
    expect(error.status).toBe(400);
    expect(error.message).toContain("opnai");
    expect(error.message).toContain("anthropic, openai, bedrock");
    expect(error.details).toMatchObject({ unknown_providers: ["opnai"] });
  });

  it("a provider id nobody enrolled is a 400", () => {
    const pins = parseProviderPins(headers({ "X-Pod-Providers": providerId }));
    expect(rejection(() => checkPinsKnown(pins, new Set())).status).toBe(400);
    expect(() => checkPinsKnown(pins, new Set([providerId]))).not.toThrow();
  });

  it.each([
    [{ "X-Pod-Providers": "openai", "X-Pod-Routing-Mode": "marketplace-only" }, 400],
    [{ "X-Pod-Providers": providerId, "X-Pod-Routing-Mode": "marketplace-only" }, 400],
    [{ "X-Pod-Providers": providerId, "X-Pod-Routing-Mode": "centralized-only" }, 400],
    [{ "X-Pod-Providers": "openai", "X-Pod-Routing-Mode": "centralized-only" }, 200],
    [{ "X-Pod-Providers": `${providerId},openai` }, 200],
  ])("%j with the mode → %s", (values, status) => {
    if (status === 200) expect(() => parseRoutingHeaders(headers(values))).not.toThrow();
    else expect(rejection(() => parseRoutingHeaders(headers(values))).status).toBe(status);
  });
});
