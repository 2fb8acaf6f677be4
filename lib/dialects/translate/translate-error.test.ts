import { anthropicErrorBodySchema, openaiErrorBodySchema } from "@pod-gateway/contracts/gateway-errors";
import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors/gateway-error";
import { renderErrorBody } from "../render-error";
import { encodeStreamError, translateErrorBody } from "./translate-error";

describe("translateErrorBody anthropic → openai", () => {
  it.each([
    { status: 400, type: "invalid_request_error", openaiType: "invalid_request_error" },
    { status: 401, type: "authentication_error", openaiType: "authentication_error" },
    { status: 402, type: "billing_error", openaiType: "insufficient_quota" },
    { status: 403, type: "permission_error", openaiType: "permission_error" },
    { status: 404, type: "not_found_error", openaiType: "not_found_error" },
    { status: 413, type: "request_too_large", openaiType: "invalid_request_error" },
    { status: 429, type: "rate_limit_error", openaiType: "rate_limit_error" },
    { status: 500, type: "api_error", openaiType: "server_error" },
    { status: 504, type: "timeout_error", openaiType: "timeout_error" },
    { status: 529, type: "overloaded_error", openaiType: "server_error" },
  ])("$status $type → $openaiType", ({ status, type, openaiType }) => {
    const body = { type: "error", error: { type, message: `boom ${type}` }, request_id: "req_011" };
    expect(translateErrorBody("anthropic", "openai", body, status)).toEqual({
      error: { message: `boom ${type}`, type: openaiType, param: null, code: type },
    });
  });
});

describe("translateErrorBody openai → anthropic", () => {
  it.each([
    {
      status: 400,
      type: "invalid_request_error",
      code: "context_length_exceeded",
      anthropicType: "invalid_request_error",
    },
    {
      status: 401,
      type: "invalid_request_error",
      code: "invalid_api_key",
      anthropicType: "authentication_error",
    },
    {
      status: 403,
      type: "invalid_request_error",
      code: "unsupported_country_region_territory",
      anthropicType: "permission_error",
    },
    { status: 404, type: "invalid_request_error", code: "model_not_found", anthropicType: "not_found_error" },
    { status: 429, type: "requests", code: "rate_limit_exceeded", anthropicType: "rate_limit_error" },
    { status: 429, type: "insufficient_quota", code: "insufficient_quota", anthropicType: "billing_error" },
    { status: 500, type: "server_error", code: null, anthropicType: "api_error" },
    { status: 503, type: "server_error", code: null, anthropicType: "api_error" },
    { status: 503, type: null, code: null, anthropicType: "overloaded_error" },
  ])("$status $type/$code → $anthropicType", ({ status, type, code, anthropicType }) => {
    const body = { error: { message: "upstream said no", type, param: null, code } };
    expect(translateErrorBody("openai", "anthropic", body, status)).toEqual({
      type: "error",
      error: { type: anthropicType, message: "upstream said no" },
    });
  });

  it("accepts a raw JSON string body", () => {
    const body = JSON.stringify({
      error: { message: "slow down", type: "tokens", code: "rate_limit_exceeded" },
    });
    expect(translateErrorBody("openai", "anthropic", body, 429)).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "slow down" },
    });
  });

  it("does not echo a non-JSON body (an HTML error page) to the caller", () => {
    expect(translateErrorBody("openai", "anthropic", "<html>502 Bad Gateway</html>", 502)).toEqual({
      type: "error",
      error: { type: "api_error", message: "upstream request failed with status 502" },
    });
    expect(translateErrorBody("anthropic", "openai", { unexpected: true }, 429)).toEqual({
      error: {
        message: "upstream request failed with status 429",
        type: "rate_limit_error",
        param: null,
        code: null,
      },
    });
  });

  it("same dialect normalises the envelope", () => {
    expect(
      translateErrorBody("openai", "openai", { error: { message: "m", type: "server_error" } }, 500),
    ).toEqual({
      error: { message: "m", type: "server_error", param: null, code: "server_error" },
    });
  });
});

describe("encodeStreamError", () => {
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

  it("openai: a data frame with an error object", () => {
    expect(decode(encodeStreamError("openai", "upstream_error", "upstream died"))).toBe(
      'data: {"error":{"message":"upstream died","type":"upstream_error","code":"upstream_error","param":null}}\n\n',
    );
  });

  it("anthropic: an `event: error` frame", () => {
    expect(decode(encodeStreamError("anthropic", "no_provider", "busy\nnow"))).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","code":"no_provider","message":"busy\\nnow"}}\n\n',
    );
  });

  it("carries the kind an error response before the first byte carries, in the contract's shape", () => {
    for (const dialect of ["openai", "anthropic"] as const) {
      const frame = decode(encodeStreamError(dialect, "upstream_timeout", "upstream sent nothing"));
      const data = JSON.parse(frame.slice(frame.indexOf("data: ") + 6));
      const before = renderErrorBody(dialect, new GatewayError("upstream_timeout", "upstream sent nothing"));
      expect(data).toEqual(before);
      const schema = dialect === "openai" ? openaiErrorBodySchema : anthropicErrorBodySchema;
      expect(schema.parse(data).error.code).toBe("upstream_timeout");
    }
    const anthropic = decode(encodeStreamError("anthropic", "upstream_timeout", "x"));
    expect(anthropic).toContain('"type":"timeout_error","code":"upstream_timeout"');
  });
});
