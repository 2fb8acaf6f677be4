/**
 * The generated content a reply carried to its caller (text, reasoning, refusals, tool-call
 * names and arguments), kept so the gateway can count the output it relayed. Bytes are
 * counted as pieces arrive: no tokenizer yields more tokens than UTF-8 bytes, so while the
 * bytes are within a limit the tokens are too, and nothing needs counting yet.
 */
export class RelayedContent {
  readonly #pieces: string[] = [];
  #bytes = 0;
  /** Tool calls started: each costs a few tokens of framing beyond its name and arguments. */
  toolCalls = 0;

  add(text: unknown): void {
    if (typeof text !== "string" || text === "") return;
    this.#pieces.push(text);
    this.#bytes += Buffer.byteLength(text);
  }

  get bytes(): number {
    return this.#bytes;
  }

  text(): string {
    if (this.#pieces.length > 1) this.#pieces.splice(0, this.#pieces.length, this.#pieces.join(""));
    return this.#pieces[0] ?? "";
  }
}
