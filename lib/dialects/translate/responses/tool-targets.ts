/**
 * What a flat tool name stands for on the Responses side. The IR (like every upstream)
 * knows only flat function tools, so `custom` (freeform) tools and tools inside a
 * `namespace` are sent as functions; this map turns the model's calls back into the item
 * the caller offered.
 */
export type ToolTarget =
  | { kind: "function"; name: string; namespace: string | undefined }
  | { kind: "custom"; name: string };

export type ToolTargets = ReadonlyMap<string, ToolTarget>;

/** The flat name of a tool: `<namespace>__<name>` keeps within OpenAI's `[A-Za-z0-9_-]`. */
export function flatToolName(name: string, namespace: string | null | undefined): string {
  return namespace ? `${namespace}__${name}` : name;
}

/** A name the model made up is answered as a plain function call; the client will reject it. */
export function toolTargetOf(targets: ToolTargets, chatName: string): ToolTarget {
  return targets.get(chatName) ?? { kind: "function", name: chatName, namespace: undefined };
}

/** A custom tool's whole input travels as the single string argument `input`. */
export const customInputField = "input";
