import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { readFixture, streamOf } from "../testing";
import {
  bytesStream,
  chatSse,
  type ParsedEvent,
  parseEvents,
  requestFor,
  responsesTranslator,
} from "./testing";

type CallerRequest = Record<string, unknown>;

async function translate(sse: string, context: CallerRequest, pieceSize?: number): Promise<string> {
  return new Response(bytesStream(sse, pieceSize).pipeThrough(responsesTranslator(context))).text();
}

/** The official SDK reading the translated stream, as `client.responses.stream()` does on the wire. */
function sdkOver(sse: string, context: CallerRequest): OpenAI {
  return new OpenAI({
    apiKey: "unit",
    baseURL: "http://responses.test/v1",
    maxRetries: 0,
    fetch: async () =>
      new Response(bytesStream(sse, 11).pipeThrough(responsesTranslator(context)), {
        headers: { "content-type": "text/event-stream" },
      }),
  });
}

const types = (events: ParsedEvent[]) => events.map((event) => event.event);
const usage = { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 };
const weatherTool = { type: "function", name: "get_weather", parameters: { type: "object" } };

describe("the Responses stream encoder, fed by the OpenAI decoder through the IR", () => {
  it("emits the Responses lifecycle for a text answer, numbered and typed", async () => {
    const sse = chatSse([
      { delta: { role: "assistant", content: "" } },
      { delta: { content: "Hello" } },
      { delta: { content: " w1" } },
      { finish: "stop" },
      { usage },
    ]);
    const events = parseEvents(await translate(sse, requestFor({})));
    expect(types(events)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    events.forEach((event, index) => {
      expect(event.data.type).toBe(event.event);
      expect(event.data.sequence_number).toBe(index);
    });
    const completed = events.at(-1)?.data.response as Record<string, unknown>;
    expect(completed.status).toBe("completed");
    expect(completed.usage).toEqual({
      input_tokens: 9,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 12,
    });
    const created = events[0]?.data.response as Record<string, unknown>;
    expect(created.id).toBe(completed.id);
    expect(created.status).toBe("in_progress");
  });

  it("is what the official SDK accumulates, whatever the chunk boundaries", async () => {
    const sse = chatSse([
      { delta: { reasoning_content: "Think" } },
      { delta: { reasoning_content: "ing." } },
      { delta: { content: "Hello" } },
      { delta: { content: " w1 w2" } },
      { finish: "stop" },
      { usage },
    ]);
    const context = requestFor({});
    const stream = sdkOver(sse, context).responses.stream({ model: "gpt-4o-mini", input: "hi" });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("Hello w1 w2");
    expect(deltas).toEqual(["Hello", " w1 w2"]);
    expect(final.status).toBe("completed");
    expect(final.output[0]).toMatchObject({
      type: "reasoning",
      content: [{ type: "reasoning_text", text: "Thinking." }],
    });
    expect(final.usage?.total_tokens).toBe(12);
    // Splitting the same bytes anywhere gives the same events.
    const whole = parseEvents(await translate(sse, context)).map((event) => event.event);
    const split = parseEvents(await translate(sse, context, 3)).map((event) => event.event);
    expect(split).toEqual(whole);
  });

  it("streams tool calls as function_call items, closing the text before them", async () => {
    const sse = chatSse([
      { delta: { content: "Checking." } },
      {
        delta: {
          tool_calls: [
            { index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } },
          ],
        },
      },
      { delta: { tool_calls: [{ index: 0, function: { arguments: '{"city"' } }] } },
      {
        delta: {
          tool_calls: [
            { index: 1, id: "call_b", type: "function", function: { name: "get_weather", arguments: "" } },
          ],
        },
      },
      { delta: { tool_calls: [{ index: 0, function: { arguments: ':"Paris"}' } }] } },
      { delta: { tool_calls: [{ index: 1, function: { arguments: '{"city":"Rome"}' } }] } },
      { finish: "tool_calls" },
      { usage },
    ]);
    const context = requestFor({ tools: [weatherTool] });
    const final = await sdkOver(sse, context)
      .responses.stream({ model: "gpt-4o-mini", input: "hi" })
      .finalResponse();
    expect(final.output.map((item) => item.type)).toEqual(["message", "function_call", "function_call"]);
    expect(final.output.slice(1)).toEqual([
      expect.objectContaining({
        call_id: "call_a",
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        status: "completed",
      }),
      expect.objectContaining({
        call_id: "call_b",
        name: "get_weather",
        arguments: '{"city":"Rome"}',
        status: "completed",
      }),
    ]);
    const events = parseEvents(await translate(sse, context));
    const done = events.filter((event) => event.event === "response.function_call_arguments.done");
    expect(done.map((event) => event.data.arguments)).toEqual(['{"city":"Paris"}', '{"city":"Rome"}']);
  });

  it("sends a custom tool's input whole, as a custom_tool_call", async () => {
    const sse = chatSse([
      {
        delta: {
          tool_calls: [{ index: 0, id: "call_p", function: { name: "apply_patch", arguments: '{"inp' } }],
        },
      },
      { delta: { tool_calls: [{ index: 0, function: { arguments: 'ut":"*** Begin Patch\\n"}' } }] } },
      { finish: "tool_calls" },
    ]);
    const context = requestFor({ tools: [{ type: "custom", name: "apply_patch" }] });
    const events = parseEvents(await translate(sse, context));
    expect(types(events)).toContain("response.custom_tool_call_input.done");
    expect(types(events)).not.toContain("response.function_call_arguments.delta");
    const final = await sdkOver(sse, context).responses.stream({ model: "m", input: "x" }).finalResponse();
    expect(final.output).toEqual([
      expect.objectContaining({
        type: "custom_tool_call",
        call_id: "call_p",
        name: "apply_patch",
        input: "*** Begin Patch\n",
      }),
    ]);
  });

  it("ends a cut-off answer with response.incomplete", async () => {
    const sse = chatSse([{ delta: { content: "Hello" } }, { finish: "length" }, { usage }]);
    const events = parseEvents(await translate(sse, requestFor({ max_output_tokens: 1 })));
    const last = events.at(-1);
    expect(last?.event).toBe("response.incomplete");
    expect(last?.data.response).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
    });
  });

  it("turns an in-band chat error into error + response.failed and ignores what follows", async () => {
    const sse = `${chatSse([{ delta: { content: "Hel" } }], { done: false })}data: ${JSON.stringify({
      error: { message: "upstream stream failed", type: "upstream_error", code: "upstream_error" },
    })}\n\n${chatSse([{ delta: { content: "lo" } }])}`;
    const events = parseEvents(await translate(sse, requestFor({})));
    expect(types(events).slice(-2)).toEqual(["error", "response.failed"]);
    expect(events.at(-2)?.data).toMatchObject({
      code: "upstream_error",
      message: "upstream stream failed",
      param: null,
    });
    expect(events.at(-1)?.data.response).toMatchObject({
      status: "failed",
      error: { code: "upstream_error", message: "upstream stream failed" },
    });
    // The SDK's stream helper raises an `error` event, as it does for OpenAI's own.
    await expect(
      sdkOver(sse, requestFor({})).responses.stream({ model: "m", input: "x" }).finalResponse(),
    ).rejects.toThrow("upstream stream failed");
  });

  it("fails a stream that ends without a finish, completes one that ends after a finish", async () => {
    const cut = parseEvents(
      await translate(chatSse([{ delta: { content: "Hel" } }], { done: false }), requestFor({})),
    );
    expect(cut.at(-1)?.event).toBe("response.failed");
    const noDone = parseEvents(
      await translate(
        chatSse([{ delta: { content: "Hi" } }, { finish: "stop" }], { done: false }),
        requestFor({}),
      ),
    );
    expect(noDone.at(-1)?.event).toBe("response.completed");
  });

  it("answers an empty turn with an empty message", async () => {
    const final = await sdkOver(chatSse([{ finish: "stop" }]), requestFor({}))
      .responses.stream({ model: "m", input: "x" })
      .finalResponse();
    expect(final.output).toEqual([expect.objectContaining({ type: "message", status: "completed" })]);
    expect(final.output_text).toBe("");
  });

  it("serves an Anthropic upstream's stream (tool use) to the same Responses client", async () => {
    const request = requestFor({ model: "claude-sonnet-4-5", tools: [weatherTool] });
    const bytes = readFixture("anthropic-tool-use.sse");
    const text = await new Response(
      streamOf([bytes]).pipeThrough(responsesTranslator(request, "anthropic")),
    ).text();
    const events = parseEvents(text);
    expect(events.at(-1)?.event).toBe("response.completed");
    const completed = events.at(-1)?.data.response as { output: Array<Record<string, unknown>> };
    expect(completed.output.map((item) => item.type)).toEqual(["message", "function_call"]);
    expect(completed.output[1]).toMatchObject({ name: "get_weather", status: "completed" });
    expect(JSON.parse(String(completed.output[1]?.arguments))).toMatchObject({ location: "Paris, France" });
  });

  it("ends the stream itself for a failure the relay detects, once, and not after the end", async () => {
    const translator = responsesTranslator(requestFor({}));
    const writer = translator.writable.getWriter();
    const reading = new Response(translator.readable).text();
    await writer.write(new TextEncoder().encode(chatSse([{ delta: { content: "Hel" } }], { done: false })));
    const failure = new TextDecoder().decode(
      Buffer.concat(translator.encodeError("upstream_timeout", "upstream sent nothing")),
    );
    expect(parseEvents(failure).map((event) => event.event)).toEqual(["error", "response.failed"]);
    expect(translator.encodeError("upstream_error", "again")).toEqual([]);
    await writer.close();
    // The decoder's own truncation error is not added after the relay's.
    expect(types(parseEvents(await reading))).not.toContain("error");
  });
});
