import type { AbortHandle } from "../light-abort";
import { dispatchHttp } from "../providers/http-dispatch";
import type { AgentTransport } from "./registry";

export interface HttpAgentTransportOptions {
  /** An OpenAI-format base (ending in the version segment) or an Anthropic-format base. */
  baseUrl: string;
  apiKey?: string;
  /** Delay before the request is sent: lets tests give an agent a slow time to headers. */
  delayMs?: number;
}

/**
 * A test double of an agent connection: it does what an agent does with a job (send it to
 * its local backend and stream the bytes back), minus the WebSocket. The backend is any
 * server speaking the offer's dialect, such as the fake upstreams of the test suite.
 */
export function createHttpAgentTransport(options: HttpAgentTransportOptions): AgentTransport {
  return async (offer, body, dispatchOptions) => {
    if (options.delayMs) await abortableDelay(options.delayMs, dispatchOptions.signal);
    return dispatchHttp(
      {
        dialect: offer.dialect,
        baseUrl: options.baseUrl.replace(/\/+$/, ""),
        apiKey: options.apiKey ?? "agent-local",
      },
      body,
      dispatchOptions,
    );
  };
}

function abortableDelay(ms: number, signal: AbortHandle): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
