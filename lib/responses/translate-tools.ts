import type { ChatFunctionTool, ChatToolChoice } from "./chat-types";
import type { CustomTool, FunctionTool, Tool, ToolChoice } from "./request-schema";
import { chatToolName, customInputField, type ToolTarget } from "./tool-targets";

export interface TranslatedTools {
  chatTools: ChatFunctionTool[];
  /** Undefined when there is nothing to choose from: OpenAI refuses a choice without tools. */
  chatToolChoice: ChatToolChoice | undefined;
  /** The Responses tools actually offered to the model, for the response's `tools` field. */
  offeredTools: Record<string, unknown>[];
  targets: Map<string, ToolTarget>;
}

function functionToChat(tool: FunctionTool, chatName: string): ChatFunctionTool {
  return {
    type: "function",
    function: {
      name: chatName,
      ...(tool.description ? { description: tool.description } : {}),
      ...(tool.parameters ? { parameters: tool.parameters } : {}),
      // Only when the caller said so: many OpenAI-compatible servers do not know `strict`.
      ...(typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
    },
  };
}

/**
 * A freeform tool becomes a function with one string argument. A grammar cannot be enforced
 * through Chat Completions, so it is given to the model in the description instead.
 */
function customToChat(tool: CustomTool, chatName: string): ChatFunctionTool {
  const format = tool.format;
  const grammar =
    format?.type === "grammar" && format.definition
      ? `\n\nThe input must follow this ${format.syntax ?? ""} grammar:\n${format.definition}`
      : "";
  const description = `${tool.description ?? ""}${grammar}`.trim();
  return {
    type: "function",
    function: {
      name: chatName,
      ...(description ? { description } : {}),
      parameters: {
        type: "object",
        properties: {
          [customInputField]: { type: "string", description: "The raw input for this tool, verbatim." },
        },
        required: [customInputField],
        additionalProperties: false,
      },
    },
  };
}

function addTool(
  result: TranslatedTools,
  tool: FunctionTool | CustomTool,
  namespace: string | undefined,
): void {
  const chatName = chatToolName(tool.name, namespace);
  if (tool.type === "function") {
    result.chatTools.push(functionToChat(tool, chatName));
    result.targets.set(chatName, { kind: "function", name: tool.name, namespace });
  } else {
    result.chatTools.push(customToChat(tool, chatName));
    result.targets.set(chatName, { kind: "custom", name: tool.name });
  }
}

function translateChoice(choice: ToolChoice | null | undefined): ChatToolChoice | undefined {
  if (choice === null || choice === undefined) return undefined;
  if (typeof choice === "string") return choice;
  if ((choice.type === "function" || choice.type === "custom") && typeof choice.name === "string") {
    return { type: "function", function: { name: choice.name } };
  }
  if (choice.type === "allowed_tools" && (choice.mode === "auto" || choice.mode === "required")) {
    return choice.mode;
  }
  // A hosted tool was chosen, and hosted tools are dropped: let the model decide.
  return "auto";
}

/** The names an `allowed_tools` choice permits, or undefined when every tool is allowed. */
function allowedNames(choice: ToolChoice | null | undefined): Set<string> | undefined {
  if (typeof choice !== "object" || choice === null || choice.type !== "allowed_tools") return undefined;
  const tools = Array.isArray(choice.tools) ? choice.tools : [];
  const names = tools.flatMap((tool: unknown) =>
    typeof tool === "object" && tool !== null && "name" in tool && typeof tool.name === "string"
      ? [tool.name]
      : [],
  );
  return new Set(names);
}

/**
 * Responses tools → Chat Completions tools. Function tools map one to one; custom and
 * namespaced tools are flattened (see ./tool-targets.ts); hosted tools (web_search,
 * file_search, code_interpreter, computer, image_generation, local_shell, mcp, …) are
 * dropped because no Chat Completions upstream could run them.
 */
export function translateTools(
  tools: Tool[] | null | undefined,
  choice: ToolChoice | null | undefined,
): TranslatedTools {
  const result: TranslatedTools = {
    chatTools: [],
    chatToolChoice: undefined,
    offeredTools: [],
    targets: new Map(),
  };
  const allowed = allowedNames(choice);
  for (const tool of tools ?? []) {
    switch (tool.type) {
      case "function":
      case "custom":
        if (allowed && !allowed.has(tool.name)) break;
        addTool(result, tool, undefined);
        result.offeredTools.push(tool);
        break;
      case "namespace":
        for (const inner of tool.tools) addTool(result, inner, tool.name);
        result.offeredTools.push(tool);
        break;
      case "hosted":
        break;
    }
  }
  if (result.chatTools.length > 0) result.chatToolChoice = translateChoice(choice);
  return result;
}
