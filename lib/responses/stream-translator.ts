import type { EventSourceMessage } from "eventsource-parser";
import { isRecord, safeParseJson } from "../dialects/translate/json-value";
import { newVendorId } from "../dialects/translate/new-id";
import { createSseDecoder } from "../sse/sse-decoder";
import { type ChatChunk, type ChatUsage, chatChunkSchema } from "./chat-response-schema";
import { ResponsesEventWriter } from "./event-writer";
import { mapFinishReason } from "./map-finish-reason";
import { mapUsage } from "./map-usage";
import { newItemId } from "./new-item-id";
import { messageItem, reasoningItem, toolCallItem } from "./output-items";
import { newResponseShell, type ResponseShell, type ResponseState, responseObject } from "./response-object";
import { type ToolTarget, toolTargetOf } from "./tool-targets";
import type { ResponsesContext } from "./translate-request";
import type { ItemStatus, OutputItem } from "./wire-types";

interface OpenTextItem {
  outputIndex: number;
  id: string;
  text: string;
}

interface OpenToolItem {
  outputIndex: number;
  id: string;
  callId: string;
  chatName: string;
  target: ToolTarget;
  argumentsText: string;
}

type ChunkDelta = NonNullable<NonNullable<ChatChunk["choices"]>[number]["delta"]>;
type ChunkToolCall = NonNullable<ChunkDelta["tool_calls"]>[number];

/**
 * One chat.completion.chunk stream → one Responses event stream. Items open as the model
 * starts them and close when the next kind of output begins (reasoning → message → calls);
 * tool calls stay open until the end because chat streams may interleave them by index.
 */
class ResponsesStreamState {
  readonly #events: ResponsesEventWriter;
  readonly #context: ResponsesContext;
  readonly #shell: ResponseShell;
  /** Items by output_index, filled in as they close. */
  readonly #output: Array<OutputItem | undefined> = [];
  #reasoning: OpenTextItem | undefined;
  #message: OpenTextItem | undefined;
  readonly #tools = new Map<number, OpenToolItem>();
  #finishReason: string | undefined;
  #usage: ChatUsage | undefined;
  #ended = false;

  constructor(events: ResponsesEventWriter, context: ResponsesContext) {
    this.#events = events;
    this.#context = context;
    this.#shell = newResponseShell(context.echo);
  }

  start(): void {
    const response = this.#response({ status: "in_progress", output: [], usage: null });
    this.#events.write("response.created", { response });
    this.#events.write("response.in_progress", { response });
  }

  receive(message: EventSourceMessage): void {
    if (this.#ended) return;
    if (message.data.trim() === "[DONE]") {
      this.#finish();
      return;
    }
    const json = safeParseJson(message.data);
    // The gateway reports a failure after the first byte in-band: `data: {"error": {…}}`.
    if (isRecord(json) && isRecord(json.error)) {
      const { code, type, message: text } = json.error;
      this.#fail(
        typeof code === "string" ? code : typeof type === "string" ? type : "server_error",
        typeof text === "string" ? text : "upstream error",
      );
      return;
    }
    const parsed = chatChunkSchema.safeParse(json);
    if (parsed.success) this.#chunk(parsed.data);
    else this.#fail("upstream_error", "upstream sent an unreadable stream chunk");
  }

  end(): void {
    if (this.#ended) return;
    // Some OpenAI-compatible servers never send [DONE]; a finish_reason is proof enough.
    if (this.#finishReason !== undefined) this.#finish();
    else this.#fail("upstream_error", "upstream stream ended before completion");
  }

  #chunk(chunk: ChatChunk): void {
    if (chunk.usage) this.#usage = chunk.usage;
    // The gateway never asks for n > 1, so only the first choice exists.
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta;
    const reasoning = delta?.reasoning_content ?? delta?.reasoning;
    if (reasoning) this.#reasoningDelta(reasoning);
    // A refusal is what the model said; it reads as the answer's text.
    const text = `${delta?.content ?? ""}${delta?.refusal ?? ""}`;
    if (text) this.#textDelta(text);
    for (const [position, call] of (delta?.tool_calls ?? []).entries())
      this.#toolDelta(call.index ?? position, call);
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
  }

  #openItem(item: Record<string, unknown>): number {
    const outputIndex = this.#output.length;
    this.#output.push(undefined);
    this.#events.write("response.output_item.added", { output_index: outputIndex, item });
    return outputIndex;
  }

  #closeItem(outputIndex: number, item: OutputItem): void {
    this.#output[outputIndex] = item;
    this.#events.write("response.output_item.done", { output_index: outputIndex, item });
  }

  #reasoningDelta(delta: string): void {
    if (!this.#reasoning) {
      this.#closeMessage("completed");
      const id = newItemId("rs");
      // Added items start empty: the content part arrives in its own event.
      const outputIndex = this.#openItem({ ...reasoningItem(id, "", "in_progress"), content: [] });
      this.#reasoning = { outputIndex, id, text: "" };
      this.#events.write("response.content_part.added", {
        item_id: id,
        output_index: outputIndex,
        content_index: 0,
        part: { type: "reasoning_text", text: "" },
      });
    }
    const item = this.#reasoning;
    item.text += delta;
    this.#events.write("response.reasoning_text.delta", {
      item_id: item.id,
      output_index: item.outputIndex,
      content_index: 0,
      delta,
    });
  }

  #closeReasoning(): void {
    const item = this.#reasoning;
    if (!item) return;
    this.#reasoning = undefined;
    const location = { item_id: item.id, output_index: item.outputIndex, content_index: 0 };
    this.#events.write("response.reasoning_text.done", { ...location, text: item.text });
    this.#events.write("response.content_part.done", {
      ...location,
      part: { type: "reasoning_text", text: item.text },
    });
    this.#closeItem(item.outputIndex, reasoningItem(item.id, item.text, "completed"));
  }

  #textDelta(delta: string): void {
    if (!this.#message) this.#openMessage();
    const item = this.#message;
    if (!item) return;
    item.text += delta;
    this.#events.write("response.output_text.delta", {
      item_id: item.id,
      output_index: item.outputIndex,
      content_index: 0,
      delta,
      logprobs: [],
    });
  }

  #openMessage(): void {
    this.#closeReasoning();
    const id = newItemId("msg");
    const outputIndex = this.#openItem({ ...messageItem(id, "", "in_progress"), content: [] });
    this.#message = { outputIndex, id, text: "" };
    this.#events.write("response.content_part.added", {
      item_id: id,
      output_index: outputIndex,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    });
  }

  #closeMessage(status: ItemStatus): void {
    const item = this.#message;
    if (!item) return;
    this.#message = undefined;
    const location = { item_id: item.id, output_index: item.outputIndex, content_index: 0 };
    this.#events.write("response.output_text.done", { ...location, text: item.text, logprobs: [] });
    this.#events.write("response.content_part.done", {
      ...location,
      part: { type: "output_text", text: item.text, annotations: [] },
    });
    this.#closeItem(item.outputIndex, messageItem(item.id, item.text, status));
  }

  #toolDelta(wireIndex: number, call: ChunkToolCall): void {
    let item = this.#tools.get(wireIndex);
    if (!item) {
      this.#closeReasoning();
      this.#closeMessage("completed");
      item = this.#openTool(call);
      this.#tools.set(wireIndex, item);
    }
    const delta = call.function?.arguments;
    if (!delta) return;
    item.argumentsText += delta;
    // A custom tool's input is a JSON string until it is complete; it is sent whole at the end.
    if (item.target.kind === "function") {
      this.#events.write("response.function_call_arguments.delta", {
        item_id: item.id,
        output_index: item.outputIndex,
        delta,
      });
    }
  }

  #openTool(call: ChunkToolCall): OpenToolItem {
    const chatName = call.function?.name ?? "";
    const target = toolTargetOf(this.#context.targets, chatName);
    const callId = call.id || newVendorId("openai-tool-call");
    const id = newItemId(target.kind === "custom" ? "ctc" : "fc");
    const empty = toolCallItem(this.#context.targets, { callId, chatName, argumentsText: "" }, id);
    const outputIndex = this.#openItem(
      empty.type === "function_call"
        ? { ...empty, arguments: "", status: "in_progress" }
        : { ...empty, input: "" },
    );
    return { outputIndex, id, callId, chatName, target, argumentsText: "" };
  }

  #closeTool(item: OpenToolItem): void {
    const done = toolCallItem(
      this.#context.targets,
      { callId: item.callId, chatName: item.chatName, argumentsText: item.argumentsText },
      item.id,
    );
    const location = { item_id: item.id, output_index: item.outputIndex };
    if (done.type === "function_call") {
      this.#events.write("response.function_call_arguments.done", {
        ...location,
        name: done.name,
        arguments: done.arguments,
      });
    } else {
      this.#events.write("response.custom_tool_call_input.done", { ...location, input: done.input });
    }
    this.#closeItem(item.outputIndex, done);
  }

  #finish(): void {
    this.#ended = true;
    const outcome = mapFinishReason(this.#finishReason);
    // A turn with no output at all still answers with an (empty) message, as OpenAI does.
    if (this.#output.length === 0) this.#openMessage();
    this.#closeReasoning();
    this.#closeMessage(outcome.status === "completed" ? "completed" : "incomplete");
    for (const item of [...this.#tools.values()].sort((left, right) => left.outputIndex - right.outputIndex))
      this.#closeTool(item);
    this.#tools.clear();
    const response = this.#response({
      status: outcome.status,
      output: this.#closedItems(),
      usage: mapUsage(this.#usage),
      incompleteDetails: outcome.incompleteDetails,
    });
    this.#events.write(outcome.status === "completed" ? "response.completed" : "response.incomplete", {
      response,
    });
  }

  /**
   * A failure after the first byte: an `error` event (OpenAI's in-band error) and then
   * `response.failed`, which is what Codex waits for to stop and report (or retry).
   */
  #fail(code: string, message: string): void {
    this.#ended = true;
    this.#events.write("error", { code, message, param: null });
    const response = this.#response({
      status: "failed",
      output: this.#closedItems(),
      usage: mapUsage(this.#usage),
      error: { code, message },
    });
    this.#events.write("response.failed", { response });
  }

  #closedItems(): OutputItem[] {
    return this.#output.filter((item): item is OutputItem => item !== undefined);
  }

  #response(state: ResponseState) {
    return responseObject(this.#shell, state);
  }
}

/**
 * Raw chat.completion.chunk SSE bytes (as the gateway's chat path answers, usage chunk
 * included) → raw Responses API SSE bytes, ending in exactly one of `response.completed`,
 * `response.incomplete` or `response.failed`.
 */
export function createResponsesStreamTranslator(
  context: ResponsesContext,
): TransformStream<Uint8Array, Uint8Array> {
  let state: ResponsesStreamState | undefined;
  let sse: ReturnType<typeof createSseDecoder> | undefined;
  return new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      state = new ResponsesStreamState(
        new ResponsesEventWriter((frame) => controller.enqueue(frame)),
        context,
      );
      const current = state;
      sse = createSseDecoder((message) => current.receive(message));
      current.start();
    },
    transform(chunk) {
      sse?.push(chunk);
    },
    flush() {
      sse?.end();
      state?.end();
    },
  });
}
