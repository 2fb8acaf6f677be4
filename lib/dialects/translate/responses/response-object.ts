import { newResponseId } from "./new-item-id";
import type { OutputItem, ResponseEcho, ResponseObject, ResponseStatus, ResponsesUsage } from "./wire-types";

/** The identity of one response, fixed before the first byte so every stream event agrees on it. */
export interface ResponseShell {
  id: string;
  createdAt: number;
  echo: ResponseEcho;
}

export function newResponseShell(echo: ResponseEcho): ResponseShell {
  const createdAt = Math.floor(Date.now() / 1000);
  return { id: newResponseId(createdAt), createdAt, echo };
}

export interface ResponseState {
  status: ResponseStatus;
  output: OutputItem[];
  usage: ResponsesUsage | null;
  error?: ResponseObject["error"];
  incompleteDetails?: ResponseObject["incomplete_details"];
}

/** A full Response object: the shell, the request's echo and the state so far. */
export function responseObject(shell: ResponseShell, state: ResponseState): ResponseObject {
  return {
    id: shell.id,
    object: "response",
    created_at: shell.createdAt,
    status: state.status,
    error: state.error ?? null,
    incomplete_details: state.incompleteDetails ?? null,
    ...shell.echo,
    output: state.output,
    background: false,
    truncation: "disabled",
    usage: state.usage,
  };
}
