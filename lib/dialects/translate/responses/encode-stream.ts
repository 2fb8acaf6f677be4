import type { ErrorInfo } from "../error-kind";
import type { FinishReason, StreamEvent } from "../ir";
import { newVendorId } from "../new-id";
import { renderOpenaiError } from "../openai/error-envelope";
import type { StreamEncoder } from "../stream-codec";
import { ResponsesEventWriter } from "./event-writer";
import { renderResponsesOutcome } from "./map-finish-reason";
import { renderResponsesUsage } from "./map-usage";
import { newItemId } from "./new-item-id";
import { messageItem, reasoningItem, toolCallItem } from "./output-items";
import type { ResponsesContext } from "./parse-request";
import { newResponseShell, type ResponseShell, type ResponseState, responseObject } from "./response-object";
import { type ToolTarget, toolTargetOf } from "./tool-targets";
import type { ItemStatus, OutputItem, ResponsesUsage } from "./wire-types";

/** A Responses stream encoder can also end the stream itself, for failures the relay detects. */
export interface ResponsesStreamEncoder extends StreamEncoder {
  /** `error` + `response.failed`, or nothing if the stream already ended. */
  encodeFailure(code: string, message: string): Uint8Array[];
}

interface OpenTextItem {
  outputIndex: number;
  id: string;
  text: string;
}

/** Where a text item's one content part is: every part and text event names it this way. */
const partOf = (item: OpenTextItem) => ({
  item_id: item.id,
  output_index: item.outputIndex,
  content_index: 0,
});

interface OpenToolItem {
  outputIndex: number;
  id: string;
  callId: string;
  name: string;
  target: ToolTarget;
  argumentsText: string;
}

/**
 * IR stream events → one Responses event stream. Items open as the model starts them and
 * close when the next kind of output begins (reasoning → message → calls); tool calls stay
 * open until the end because upstreams may interleave their argument deltas.
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
  #started = false;
  #ended = false;

  constructor(events: ResponsesEventWriter, context: ResponsesContext) {
    this.#events = events;
    this.#context = context;
    this.#shell = newResponseShell(context.echo);
  }

  receive(event: StreamEvent): void {
    if (this.#ended) return;
    this.#start();
    switch (event.type) {
      case "text-delta":
        this.#textDelta(event.text);
        return;
      case "reasoning-delta":
        this.#reasoningDelta(event.text);
        return;
      case "tool-call-start":
        this.#openTool(event.toolIndex, event.id, event.name);
        return;
      case "tool-call-delta":
        this.#toolDelta(event.toolIndex, event.argumentsDelta);
        return;
      case "finish":
        this.#finish(event.reason, renderResponsesUsage(event.usage, event.reasoningTokens));
        return;
      case "error":
        this.fail(errorCode(event.error), event.error.message);
        return;
    }
  }

  /**
   * A failure after the first byte: an `error` event (OpenAI's in-band error) and then
   * `response.failed`, which is what Codex waits for to stop and report (or retry).
   */
  fail(code: string, message: string): void {
    if (this.#ended) return;
    this.#start();
    this.#ended = true;
    this.#events.write("error", { code, message, param: null });
    const response = this.#response({
      status: "failed",
      output: this.#closedItems(),
      usage: null,
      error: { code, message },
    });
    this.#events.write("response.failed", { response });
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    const response = this.#response({ status: "in_progress", output: [], usage: null });
    this.#events.write("response.created", { response });
    this.#events.write("response.in_progress", { response });
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
        ...partOf(this.#reasoning),
        part: { type: "reasoning_text", text: "" },
      });
    }
    const item = this.#reasoning;
    item.text += delta;
    this.#events.write("response.reasoning_text.delta", { ...partOf(item), delta });
  }

  #closeReasoning(): void {
    const item = this.#reasoning;
    if (!item) return;
    this.#reasoning = undefined;
    const location = partOf(item);
    this.#events.write("response.reasoning_text.done", { ...location, text: item.text });
    this.#events.write("response.content_part.done", {
      ...location,
      part: { type: "reasoning_text", text: item.text },
    });
    this.#closeItem(item.outputIndex, reasoningItem(item.id, item.text, "completed"));
  }

  #textDelta(delta: string): void {
    const item = this.#message ?? this.#openMessage();
    item.text += delta;
    this.#events.write("response.output_text.delta", { ...partOf(item), delta, logprobs: [] });
  }

  #openMessage(): OpenTextItem {
    this.#closeReasoning();
    const id = newItemId("msg");
    const outputIndex = this.#openItem({ ...messageItem(id, "", "in_progress"), content: [] });
    const item = { outputIndex, id, text: "" };
    this.#message = item;
    this.#events.write("response.content_part.added", {
      ...partOf(item),
      part: { type: "output_text", text: "", annotations: [] },
    });
    return item;
  }

  #closeMessage(status: ItemStatus): void {
    const item = this.#message;
    if (!item) return;
    this.#message = undefined;
    const location = partOf(item);
    this.#events.write("response.output_text.done", { ...location, text: item.text, logprobs: [] });
    this.#events.write("response.content_part.done", {
      ...location,
      part: { type: "output_text", text: item.text, annotations: [] },
    });
    this.#closeItem(item.outputIndex, messageItem(item.id, item.text, status));
  }

  #openTool(toolIndex: number, callId: string, name: string): void {
    this.#closeReasoning();
    this.#closeMessage("completed");
    const target = toolTargetOf(this.#context.targets, name);
    const id = newItemId(target.kind === "custom" ? "ctc" : "fc");
    const item: OpenToolItem = {
      outputIndex: -1,
      id,
      callId: callId || newVendorId("openai-tool-call"),
      name,
      target,
      argumentsText: "",
    };
    const empty = toolCallItem(this.#context.targets, { id: item.callId, name, arguments: "" }, id);
    item.outputIndex = this.#openItem(
      empty.type === "function_call"
        ? { ...empty, arguments: "", status: "in_progress" }
        : { ...empty, input: "" },
    );
    this.#tools.set(toolIndex, item);
  }

  #toolDelta(toolIndex: number, delta: string): void {
    const item = this.#tools.get(toolIndex);
    if (!item || !delta) return;
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

  #closeTool(item: OpenToolItem): void {
    const done = toolCallItem(
      this.#context.targets,
      { id: item.callId, name: item.name, arguments: item.argumentsText },
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

  #finish(reason: FinishReason, usage: ResponsesUsage): void {
    this.#ended = true;
    const outcome = renderResponsesOutcome(reason);
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
      usage,
      incompleteDetails: outcome.incompleteDetails,
    });
    this.#events.write(outcome.status === "completed" ? "response.completed" : "response.incomplete", {
      response,
    });
  }

  #closedItems(): OutputItem[] {
    return this.#output.filter((item): item is OutputItem => item !== undefined);
  }

  #response(state: ResponseState) {
    return responseObject(this.#shell, state);
  }
}

/** The code a Responses client sees: the upstream's own when it gave one, else OpenAI's type. */
function errorCode(error: ErrorInfo): string {
  return error.sourceCode ?? String(renderOpenaiError(error).error.type);
}

/**
 * IR events → Responses API SSE frames, ending in exactly one of `response.completed`,
 * `response.incomplete` or `response.failed`.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export function createResponsesStreamEncoder(context: ResponsesContext): ResponsesStreamEncoder {
  let frames: Uint8Array[] = [];
  const state = new ResponsesStreamState(new ResponsesEventWriter((frame) => frames.push(frame)), context);
  const drain = (): Uint8Array[] => {
    const out = frames;
    frames = [];
    return out;
  };
  return {
    encode(event) {
      state.receive(event);
      return drain();
    },
    encodeFailure(code, message) {
      state.fail(code, message);
      return drain();
    },
  };
}
