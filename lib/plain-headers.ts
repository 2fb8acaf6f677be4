/** Header values by lower-cased name: node:http's `headersDistinct`, undici's answer headers, a handler's record. */
export type HeaderRecord = Record<string, string | string[] | undefined>;

/**
 * Headers kept as the plain record they came in (a request's as node:http parsed them, an
 * upstream answer's as undici parsed them, a reply's as its handler wrote them), behind the web
 * Headers interface the API reads and writes. An undici Headers copied and validated every
 * header once more per request and per answer, and sorted them on every iteration: 2 to 3% of
 * the gateway's CPU per request at 50 connections in profiles for the request's alone. Reads are
 * the same as that Headers': a repeated header's values joined with ", ", names in any case,
 * iteration sorted by name. `own` headers (ones only the gateway sets) read as given, whatever
 * the record holds under those names. node:http validates every value again when it writes.
 */
export class PlainHeaders implements Headers {
  readonly #record: HeaderRecord;
  /** Set, appended or deleted since (null: deleted); wins over `#record`. */
  readonly #changed = new Map<string, string | null>();

  /** `record`'s names must be lower-case (node:http's and undici's are; `fromWritten` makes them so). */
  constructor(record: HeaderRecord, own: Record<string, string> = {}) {
    this.#record = record;
    for (const [name, value] of Object.entries(own)) this.#changed.set(name.toLowerCase(), value);
  }

  /** A record a handler wrote, names in any case. */
  static fromWritten(written: Record<string, string>): PlainHeaders {
    const record: HeaderRecord = {};
    for (const [name, value] of Object.entries(written)) record[name.toLowerCase()] = value;
    return new PlainHeaders(record);
  }

  get(name: string): string | null {
    const key = name.toLowerCase();
    const changed = this.#changed.get(key);
    if (changed !== undefined) return changed;
    if (!Object.hasOwn(this.#record, key)) return null;
    const value = this.#record[key];
    if (value === undefined) return null;
    if (typeof value === "string") return value;
    return value.length === 0 ? null : value.join(", ");
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  set(name: string, value: string): void {
    this.#changed.set(name.toLowerCase(), value);
  }

  append(name: string, value: string): void {
    const existing = this.get(name);
    this.set(name, existing === null ? value : `${existing}, ${value}`);
  }

  delete(name: string): void {
    this.#changed.set(name.toLowerCase(), null);
  }

  getSetCookie(): string[] {
    const changed = this.#changed.get("set-cookie");
    if (changed !== undefined) return changed === null ? [] : [changed];
    const value = Object.hasOwn(this.#record, "set-cookie") ? this.#record["set-cookie"] : undefined;
    if (value === undefined) return [];
    return typeof value === "string" ? [value] : [...value];
  }

  /** Every header as node:http's writeHead takes them (set-cookie kept apart), unsorted. */
  toRecord(): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const name of Object.keys(this.#record)) {
      if (name === "set-cookie" || this.#changed.has(name)) continue;
      const value = this.get(name);
      if (value !== null) out[name] = value;
    }
    for (const [name, value] of this.#changed) if (value !== null && name !== "set-cookie") out[name] = value;
    const cookies = this.getSetCookie();
    if (cookies.length > 0) out["set-cookie"] = cookies;
    return out;
  }

  *entries(): HeadersIterator<[string, string]> {
    const names = new Set([...Object.keys(this.#record), ...this.#changed.keys()]);
    for (const name of [...names].sort()) {
      const value = this.get(name);
      if (value !== null) yield [name, value];
    }
  }

  *keys(): HeadersIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): HeadersIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }
}
