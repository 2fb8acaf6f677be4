import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors/gateway-error";
import { concatText, openaiDeltas, parseSseJson, translateBytes } from "./testing";
import { translateRequest } from "./translate-request";
import { translateResponse } from "./translate-response";

const schema = {
  type: "object",
  properties: { city: { type: "string" }, degrees: { type: "number" } },
  required: ["city", "degrees"],
  additionalProperties: false,
};
const user = [{ role: "user", content: "Weather in Paris?" }];
const jsonSchemaFormat = { type: "json_schema", json_schema: { name: "weather", schema, strict: true } };
const claude = { reasoning: true, structuredOutput: false };
const claudeWithStructuredOutput = { reasoning: true, structuredOutput: true };
const plainModel = { reasoning: false, structuredOutput: false };

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("structured output from an OpenAI caller to an Anthropic model", () => {
  it("json_schema without tools becomes a forced tool carrying the schema", () => {
    const body = translateRequest(
      "openai",
      "anthropic",
      { messages: user, response_format: jsonSchemaFormat },
      "claude-x",
      claude,
    );
    expect(body.tools).toEqual([
      { name: "weather", description: "Give your answer as this tool's input.", input_schema: schema },
    ]);
    expect(body.tool_choice).toEqual({ type: "tool", name: "weather" });
    expect(body.output_config).toBeUndefined();
  });

  it("json_object asks for any object through a tool named json_response", () => {
    const body = translateRequest(
      "openai",
      "anthropic",
      { messages: user, response_format: { type: "json_object" } },
      "claude-x",
      claude,
    );
    expect(body.tool_choice).toEqual({ type: "tool", name: "json_response" });
    expect(body.tools).toEqual([expect.objectContaining({ input_schema: { type: "object" } })]);
  });

  it("beside the caller's own tools it is output_config.format, where the model has it, else a 400", () => {
    const withTools = {
      messages: user,
      response_format: jsonSchemaFormat,
      tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
    };
    const body = translateRequest("openai", "anthropic", withTools, "claude-x", claudeWithStructuredOutput);
    expect(body.output_config).toEqual({ format: { type: "json_schema", schema } });
    expect(body.tool_choice).toBeUndefined();
    expect(body.tools).toEqual([{ name: "lookup", input_schema: { type: "object" } }]);
    const error = refusal(() => translateRequest("openai", "anthropic", withTools, "claude-x", claude));
    expect(error.status).toBe(400);
    expect(error.param).toBe("response_format");
  });

  it("the carrier's tool_use comes back as the message content, finish_reason stop", () => {
    const upstream = {
      id: "msg_1",
      content: [{ type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris", degrees: 18 } }],
      stop_reason: "tool_use",
      usage: { input_tokens: 20, output_tokens: 9 },
    };
    const answer = translateResponse("anthropic", "openai", upstream, "claude-x", {
      messages: user,
      response_format: jsonSchemaFormat,
    }) as { choices: Array<{ message: Record<string, unknown>; finish_reason: string }> };
    const [choice] = answer.choices;
    expect(choice?.finish_reason).toBe("stop");
    expect(choice?.message.tool_calls).toBeUndefined();
    expect(JSON.parse(String(choice?.message.content))).toEqual({ city: "Paris", degrees: 18 });
  });

  it("a streamed carrier call becomes streamed content", async () => {
    const events = [
      ["message_start", { message: { usage: { input_tokens: 20, output_tokens: 1 } } }],
      [
        "content_block_start",
        { index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "weather", input: {} } },
      ],
      ["content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '{"city":' } }],
      [
        "content_block_delta",
        { index: 0, delta: { type: "input_json_delta", partial_json: '"Paris","degrees":18}' } },
      ],
      ["content_block_stop", { index: 0 }],
      ["message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } }],
      ["message_stop", {}],
    ] as const;
    const sse = events.map(
      ([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`,
    );
    const output = await translateBytes("anthropic", "openai", [new TextEncoder().encode(sse.join(""))], {
      model: "claude-x",
      includeUsage: false,
      callerRequest: { messages: user, response_format: jsonSchemaFormat, stream: true },
    });
    const chunks = parseSseJson(output);
    expect(JSON.parse(concatText(chunks))).toEqual({ city: "Paris", degrees: 18 });
    expect(openaiDeltas(chunks).some((delta) => "tool_calls" in (delta.delta ?? {}))).toBe(false);
    expect(openaiDeltas(chunks).at(-1)?.finish_reason).toBe("stop");
  });

  it("a Responses caller's text.format goes the same way", () => {
    const body = translateRequest(
      "responses",
      "anthropic",
      { model: "m", input: "Weather?", text: { format: { type: "json_schema", name: "weather", schema } } },
      "claude-x",
      claude,
    );
    expect(body.tool_choice).toEqual({ type: "tool", name: "weather" });
  });
});

describe("structured output from an Anthropic caller to an OpenAI-format model", () => {
  it.each(["output_config", "output_format"])("%s.format becomes response_format json_schema", (field) => {
    const format = { type: "json_schema", schema };
    const body = translateRequest(
      "anthropic",
      "openai",
      {
        messages: user,
        max_tokens: 100,
        ...(field === "output_config" ? { output_config: { format } } : { output_format: format }),
      },
      "gpt-x",
      plainModel,
    );
    expect(body.response_format).toEqual({ type: "json_schema", json_schema: { name: "response", schema } });
  });
});

describe("reasoning settings", () => {
  it("reasoning_effort becomes a thinking budget that leaves the answer room", () => {
    const body = translateRequest(
      "openai",
      "anthropic",
      { messages: user, reasoning_effort: "high", max_completion_tokens: 20_000 },
      "claude-x",
      claude,
    );
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 10_000 });
    const small = refusal(() =>
      translateRequest(
        "openai",
        "anthropic",
        { messages: user, reasoning_effort: "low", max_tokens: 1000 },
        "claude-x",
        claude,
      ),
    );
    expect(small.param).toBe("max_tokens");
  });

  it("a thinking budget becomes the nearest effort; adaptive thinking takes output_config.effort", () => {
    const thinking = (budget: number) =>
      translateRequest(
        "anthropic",
        "openai",
        { messages: user, max_tokens: 30_000, thinking: { type: "enabled", budget_tokens: budget } },
        "o-x",
        { reasoning: true, structuredOutput: true },
      ).reasoning_effort;
    expect([thinking(1024), thinking(4096), thinking(16_000)]).toEqual(["low", "medium", "high"]);
    const adaptive = translateRequest(
      "anthropic",
      "openai",
      { messages: user, max_tokens: 100, thinking: { type: "adaptive" }, output_config: { effort: "max" } },
      "o-x",
      { reasoning: true, structuredOutput: true },
    );
    expect(adaptive.reasoning_effort).toBe("high");
  });

  it("a model without reasoning refuses thinking by name; a Responses caller's effort is left out", () => {
    const error = refusal(() =>
      translateRequest(
        "anthropic",
        "openai",
        { messages: user, max_tokens: 5000, thinking: { type: "enabled", budget_tokens: 2000 } },
        "gpt-x",
        plainModel,
      ),
    );
    expect(error.param).toBe("thinking");
    const body = translateRequest(
      "responses",
      "openai",
      { model: "m", input: "hi", reasoning: { effort: "medium" } },
      "gpt-x",
      plainModel,
    );
    expect(body.reasoning_effort).toBeUndefined();
  });
});

describe("fields the other format cannot express are refused by name, never dropped", () => {
  it.each([
    ["openai", { seed: 7 }, "seed"],
    ["openai", { logit_bias: { 50256: -100 } }, "logit_bias"],
    ["openai", { logprobs: true }, "logprobs"],
    ["openai", { frequency_penalty: 0.5 }, "frequency_penalty"],
    ["openai", { n: 2 }, "n"],
    ["openai", { modalities: ["text", "audio"] }, "modalities"],
    ["openai", { some_future_field: 1 }, "some_future_field"],
    ["anthropic", { top_k: 5 }, "top_k"],
    ["anthropic", { mcp_servers: [] }, "mcp_servers"],
  ] as const)("%s caller: %j → 400 naming %s", (from, extra, field) => {
    const to = from === "openai" ? "anthropic" : "openai";
    const error = refusal(() =>
      translateRequest(from, to, { messages: user, max_tokens: 100, ...extra }, "x", claude),
    );
    expect(error.status).toBe(400);
    expect(error.param).toBe(field);
    expect(error.message).toContain(field);
  });

  it("neutral values and hints pass: zero penalties, logprobs false, store, metadata, service_tier", () => {
    const body = translateRequest(
      "openai",
      "anthropic",
      {
        messages: user,
        frequency_penalty: 0,
        presence_penalty: 0,
        logprobs: false,
        store: false,
        metadata: { app: "x" },
        service_tier: "auto",
        n: 1,
      },
      "claude-x",
      claude,
    );
    expect(Object.keys(body).sort()).toEqual(["max_tokens", "messages", "model"]);
  });

  it("more stop sequences than OpenAI takes is a 400 naming stop_sequences", () => {
    const error = refusal(() =>
      translateRequest(
        "anthropic",
        "openai",
        { messages: user, max_tokens: 10, stop_sequences: ["a", "b", "c", "d", "e"] },
        "gpt-x",
        plainModel,
      ),
    );
    expect(error.param).toBe("stop_sequences");
  });
});

describe("tool_choice variants", () => {
  const tools = ["a", "b", "c"].map((name) => ({
    type: "function",
    function: { name, parameters: { type: "object" } },
  }));

  it("allowed_tools offers only the allowed tools, in the mode asked", () => {
    const body = translateRequest(
      "openai",
      "anthropic",
      {
        messages: user,
        tools,
        tool_choice: {
          type: "allowed_tools",
          allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "b" } }] },
        },
        parallel_tool_calls: false,
      },
      "claude-x",
      claude,
    );
    expect((body.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(["b"]);
    expect(body.tool_choice).toEqual({ type: "any", disable_parallel_tool_use: true });
  });
});
