import { encodeJsonFrame } from "../sse";

/**
 * Writes Responses stream events: `event: <type>` plus a data object carrying the same
 * `type` and a `sequence_number` that counts every event of the stream from 0.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export class ResponsesEventWriter {
  #sequence = 0;
  readonly #enqueue: (frame: Uint8Array) => void;

  constructor(enqueue: (frame: Uint8Array) => void) {
    this.#enqueue = enqueue;
  }

  write(type: string, payload: Record<string, unknown>): void {
    this.#enqueue(encodeJsonFrame({ type, ...payload, sequence_number: this.#sequence }, type));
    this.#sequence += 1;
  }
}
