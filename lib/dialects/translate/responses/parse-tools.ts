import type { ToolChoice as IrToolChoice, ToolDefinition } from "../ir";
import type { CustomTool, FunctionTool, Tool, ToolChoice } from "./schemas";
import { customInputField, flatToolName, type ToolTarget } from "./tool-targets";

interface ParsedTools {
  tools: ToolDefinition[];
  /** Undefined when there is nothing to choose from: OpenAI refuses a choice without tools. */
  toolChoice: IrToolChoice | undefined;
  /** The Responses tools actually offered to the model, for the response's `tools` field. */
  offeredTools: Record<string, unknown>[];
  targets: Map<string, ToolTarget>;
}

function functionTool(tool: FunctionTool, name: string): ToolDefinition {
  return {
    name,
    description: tool.description ?? undefined,
    parameters: tool.parameters ?? { type: "object", properties: {} },
    // Only when the caller said so: many OpenAI-compatible servers do not know `strict`.
    ...(typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
  };
}

/**
 * A freeform tool becomes a function with one string argument. A grammar cannot be enforced
 * through a function schema, so it is given to the model in the description instead.
 */
function customTool(tool: CustomTool, name: string): ToolDefinition {
  const format = tool.format;
  const grammar =
    format?.type === "grammar" && format.definition
      ? `\n\nThe input must follow this ${format.syntax ?? ""} grammar:\n${format.definition}`
      : "";
  const description = `${tool.description ?? ""}${grammar}`.trim();
  return {
    name,
    description: description || undefined,
    parameters: {
      type: "object",
      properties: {
        [customInputField]: { type: "string", description: "The raw input for this tool, verbatim." },
      },
      required: [customInputField],
      additionalProperties: false,
    },
  };
}

function addTool(result: ParsedTools, tool: FunctionTool | CustomTool, namespace: string | undefined): void {
  const name = flatToolName(tool.name, namespace);
  if (tool.type === "function") {
    result.tools.push(functionTool(tool, name));
    result.targets.set(name, { kind: "function", name: tool.name, namespace });
  } else {
    result.tools.push(customTool(tool, name));
    result.targets.set(name, { kind: "custom", name: tool.name });
  }
}

function parseChoice(choice: ToolChoice | null | undefined): IrToolChoice | undefined {
  if (choice === null || choice === undefined) return undefined;
  if (typeof choice === "string") return { type: choice };
  if ((choice.type === "function" || choice.type === "custom") && typeof choice.name === "string") {
    return { type: "tool", name: choice.name };
  }
  if (choice.type === "allowed_tools" && (choice.mode === "auto" || choice.mode === "required")) {
    return { type: choice.mode };
  }
  // A hosted tool was chosen, and hosted tools are dropped: let the model decide.
  return { type: "auto" };
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
 * Responses tools → IR tools. Function tools map one to one; custom and namespaced tools
 * are flattened (see ./tool-targets.ts); hosted tools (web_search, file_search,
 * code_interpreter, computer, image_generation, local_shell, mcp, …) are dropped because no
 * upstream the gateway calls could run them.
 */
export function parseTools(
  tools: Tool[] | null | undefined,
  choice: ToolChoice | null | undefined,
): ParsedTools {
  const result: ParsedTools = { tools: [], toolChoice: undefined, offeredTools: [], targets: new Map() };
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
  if (result.tools.length > 0) result.toolChoice = parseChoice(choice);
  return result;
}
