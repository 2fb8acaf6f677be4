import { randomUUID } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import { basename } from "node:path";
import {
  chatChunkFrames,
  chatCompletionBody,
  chatUsage,
  wantsStreamUsage,
} from "@pod-gateway/contracts/chat-completion-wire";
import type { ChatHistoryItem, LlamaChat, LlamaContextSequence, LlamaModel } from "node-llama-cpp";
import type { BackendConfig } from "./backend";

/**
 * The built-in backend: a local GGUF file served in-process through node-llama-cpp, so an
 * operator with a model file and no inference server can sell it. It answers OpenAI chat
 * completion requests exactly as an OpenAI-compatible server would (a `chat.completion` body,
 * or `chat.completion.chunk` SSE frames ending with a usage chunk when asked and `[DONE]`), as
 * a web `Response`, so the job loop relays its bytes like any other backend's.
 *
 * One context sequence, so one generation at a time: the agent announces `max_concurrent: 1`
 * for the model, and a job that arrives while another runs waits its turn.
 */

export const defaultGgufContextSize = 4096;
/** One evaluation thread: on small CPUs more threads spend more time syncing than computing. */
const defaultGgufThreads = 1;

/** The catalog id a GGUF backend is sold as: `model_id`, else the file name without `.gguf`. */
export function ggufModelId(backend: BackendConfig): string {
  return backend.model_id ?? basename(backend.model_path ?? "model.gguf").replace(/\.gguf$/i, "");
}

/** Why a file cannot be a GGUF model (missing, unreadable, wrong magic), or undefined. */
export function ggufFileProblem(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const magic = Buffer.alloc(4);
    readSync(fd, magic, 0, 4, 0);
    return magic.toString("latin1") === "GGUF" ? undefined : `${path} is not a GGUF file`;
  } catch (error) {
    return `${path}: ${error instanceof Error ? error.message : "unreadable"}`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

type OpenAiMessage = { role?: unknown; content?: unknown };

class BadRequest extends Error {
  override readonly name = "BadRequest";
}

/** OpenAI message content (a string or text parts) as plain text; other parts are refused. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) throw new BadRequest("message content must be a string or an array of parts");
  return content
    .map((part: { type?: unknown; text?: unknown }) => {
      if (part?.type === "text" && typeof part.text === "string") return part.text;
      throw new BadRequest(`content part type ${String(part?.type)} is not supported by this model`);
    })
    .join("");
}

/** OpenAI chat messages as node-llama-cpp chat history, ending with the (empty) model turn to fill. */
function toChatHistory(messages: unknown): ChatHistoryItem[] {
  if (!Array.isArray(messages) || messages.length === 0)
    throw new BadRequest("messages must be a non-empty array");
  const history: ChatHistoryItem[] = [];
  for (const message of messages as OpenAiMessage[]) {
    const text = contentText(message?.content);
    switch (message?.role) {
      case "system":
      case "developer":
        history.push({ type: "system", text });
        break;
      case "user":
        history.push({ type: "user", text });
        break;
      case "assistant":
        history.push({ type: "model", response: [text] });
        break;
      case "tool":
        history.push({ type: "user", text: `Tool result: ${text}` });
        break;
      default:
        throw new BadRequest(`unknown message role ${String(message?.role)}`);
    }
  }
  history.push({ type: "model", response: [] });
  return history;
}

function numberParam(body: Record<string, unknown>, name: string): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) throw new BadRequest(`${name} must be a number`);
  return value;
}

function errorResponse(status: number, message: string, code: string): Response {
  return Response.json({ error: { message, type: "invalid_request_error", param: null, code } }, { status });
}

/** A loaded GGUF model with one context sequence, answering OpenAI chat completion requests. */
export class GgufEngine {
  readonly modelId: string;
  readonly contextSize: number;
  readonly #model: LlamaModel;
  readonly #sequence: LlamaContextSequence;
  readonly #LlamaChat: typeof LlamaChat;
  #queue: Promise<void> = Promise.resolve();

  private constructor(
    modelId: string,
    model: LlamaModel,
    sequence: LlamaContextSequence,
    chatClass: typeof LlamaChat,
  ) {
    this.modelId = modelId;
    this.#model = model;
    this.#sequence = sequence;
    this.#LlamaChat = chatClass;
    this.contextSize = sequence.contextSize;
  }

  /** Loads the model file (node-llama-cpp is imported here, so the agent runs without it for other backends). */
  static async load(backend: BackendConfig): Promise<GgufEngine> {
    const path = backend.model_path;
    if (!path) throw new Error("a gguf backend needs model_path");
    const problem = ggufFileProblem(path);
    if (problem) throw new Error(problem);
    const llamaCpp = await import("node-llama-cpp");
    const llama = await llamaCpp.getLlama({
      gpu: backend.gpu ?? "auto",
      // Only the prebuilt binaries: never download or compile llama.cpp at run time.
      build: "never",
      logLevel: llamaCpp.LlamaLogLevel.error,
      progressLogs: false,
    });
    const model = await llama.loadModel({ modelPath: path });
    const context = await model.createContext({
      contextSize: Math.min(backend.context_size ?? defaultGgufContextSize, model.trainContextSize),
      threads: backend.threads ?? defaultGgufThreads,
      sequences: 1,
    });
    return new GgufEngine(ggufModelId(backend), model, context.getSequence(), llamaCpp.LlamaChat);
  }

  /** Where this engine runs, for logs. */
  describe(): string {
    return `${this.modelId} (${this.#model.filename ?? "gguf"}, context ${this.contextSize} tokens)`;
  }

  /** Answers one OpenAI chat completion request body, as an OpenAI-compatible server would. */
  async respond(body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
    let history: ChatHistoryItem[];
    let maxTokens: number | undefined;
    let temperature: number | undefined;
    let topP: number | undefined;
    let seed: number | undefined;
    let stop: string[];
    try {
      history = toChatHistory(body.messages);
      maxTokens = numberParam(body, "max_completion_tokens") ?? numberParam(body, "max_tokens");
      temperature = numberParam(body, "temperature");
      topP = numberParam(body, "top_p");
      seed = numberParam(body, "seed");
      const n = numberParam(body, "n") ?? 1;
      if (n !== 1) throw new BadRequest("n must be 1: this backend generates one choice");
      if (Array.isArray(body.tools) && body.tools.length > 0)
        throw new BadRequest("tools are not supported by this backend");
      stop = body.stop === undefined || body.stop === null ? [] : [body.stop].flat().map(String);
    } catch (error) {
      if (error instanceof BadRequest) return errorResponse(400, error.message, "invalid_request");
      throw error;
    }
    const release = await this.#turn(signal);
    const chat = new this.#LlamaChat({ contextSequence: this.#sequence, autoDisposeSequence: false });
    const promptTokens = chat.chatWrapper
      .generateContextState({ chatHistory: history })
      .contextText.tokenize(this.#model.tokenizer).length;
    const room = this.contextSize - promptTokens;
    if (room <= 0) {
      chat.dispose({ disposeSequence: false });
      release();
      return errorResponse(
        400,
        `the prompt is ${promptTokens} tokens; this model's context is ${this.contextSize} tokens`,
        "context_length_exceeded",
      );
    }
    const limit = Math.max(1, Math.min(maxTokens ?? room, room));
    const stream = body.stream === true;
    const stamp = {
      id: `chatcmpl-${randomUUID().replaceAll("-", "")}`,
      created: Math.floor(Date.now() / 1000),
      model: typeof body.model === "string" ? body.model : this.modelId,
    };
    const stopGeneration = new AbortController();
    const generationSignal = AbortSignal.any([signal, stopGeneration.signal]);
    let completionTokens = 0;
    let emit: (text: string) => void = () => undefined;
    const generation = chat
      .generateResponse(history, {
        maxTokens: limit,
        ...(temperature !== undefined ? { temperature } : {}),
        ...(topP !== undefined ? { topP } : {}),
        ...(seed !== undefined ? { seed } : {}),
        ...(stop.length > 0 ? { customStopTriggers: stop } : {}),
        signal: generationSignal,
        onToken: (tokens) => {
          completionTokens += tokens.length;
        },
        onTextChunk: (text) => emit(text),
      })
      .finally(() => {
        chat.dispose({ disposeSequence: false });
        release();
      });
    const finishReason = (stopReason: string) => (stopReason === "maxTokens" ? "length" : "stop");

    if (!stream) {
      const result = await generation;
      return Response.json(
        chatCompletionBody(
          stamp,
          result.response,
          finishReason(result.metadata.stopReason),
          chatUsage(promptTokens, completionTokens),
        ),
      );
    }

    const chunks = chatChunkFrames(stamp);
    const events = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunks.delta({ role: "assistant", content: "" }, null));
        emit = (text) => controller.enqueue(chunks.delta({ content: text }, null));
        generation.then(
          (result) => {
            controller.enqueue(chunks.delta({}, finishReason(result.metadata.stopReason)));
            if (wantsStreamUsage(body))
              controller.enqueue(chunks.usage(chatUsage(promptTokens, completionTokens)));
            controller.enqueue(chunks.done());
            controller.close();
          },
          (error: unknown) => controller.error(error),
        );
      },
      cancel() {
        stopGeneration.abort(new Error("the reader went away"));
      },
    });
    return new Response(events, { headers: { "content-type": "text/event-stream" } });
  }

  /**
   * Waits for the sequence to be free; resolves with the function that frees it again. A job
   * cancelled while it waits leaves the queue at once (its place passes on when the one before ends).
   */
  async #turn(signal: AbortSignal): Promise<() => void> {
    let release: () => void = () => undefined;
    const previous = this.#queue;
    this.#queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    const abandoned = new Promise<never>((_, reject) => {
      const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
      void previous.then(() => signal.removeEventListener("abort", onAbort));
    });
    try {
      await Promise.race([previous, abandoned]);
    } catch (error) {
      void previous.then(release);
      throw error;
    }
    return release;
  }
}
