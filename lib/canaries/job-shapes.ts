import { randomInt } from "node:crypto";
import type { Dialect } from "../dialects/dialect";

/**
 * The shapes of real marketplace jobs, kept so canaries look like them (issue 31, item 1): for a
 * (model, agent format), a bounded uniform sample (reservoir) of the bodies agents were sent, with
 * every piece of content taken out. What stays is what an agent could tell a canary by: the
 * fields present and their order, the turns and their roles, the sampling settings, the output
 * limit, streaming and its options, and each text's length rounded to two significant digits.
 * No text, identifier or tool definition is kept; a job whose body carries what a canary could
 * not imitate without the caller's content (tools, tool turns, images, files) is not sampled, and
 * such jobs are never canaries (they are not checked either: see the trust page).
 *
 * The sample lives in the process's memory, per gateway replica: it is gone on restart and
 * refills from the next jobs.
 */

/** A text taken out of a body: who wrote it (the message's role, or `system`) and its rounded length. */
export interface TextSlot {
  $text: "system" | "user" | "assistant" | "developer";
  chars: number;
}

/** An identifier taken out (a caller's `user` id, a cache key): a random one of this length goes back. */
interface IdSlot {
  $id: number;
}

type ShapeValue =
  | TextSlot
  | IdSlot
  | string
  | number
  | boolean
  | null
  | ShapeValue[]
  | { [key: string]: ShapeValue };

export interface JobShape {
  /** The agent's format: a canary from this shape goes to hosts of this format. */
  dialect: Dialect;
  body: { [key: string]: ShapeValue };
}

/** Shapes kept per (model, format), and (model, format) pairs kept: bounded whatever the traffic. */
const perKey = 256;
const maxKeys = 1024;

/** Fields whose content a canary cannot imitate without the caller's: such a job is not sampled. */
const unimitable = new Set(["tools", "functions", "function_call", "tool_choice", "logit_bias", "n"]);
/** Identifiers: their values are a caller's, a random one of the same length takes their place. */
const identifiers = new Set(["user", "safety_identifier", "prompt_cache_key", "user_id", "session_id"]);
/** A setting's value kept as it is: short and word-like ("auto", "low", "json_object", a model id). */
const settingValue = /^[A-Za-z0-9_.:/-]{1,64}$/;
const roles = new Set(["system", "user", "assistant", "developer"]);

class NotSampled extends Error {}

/** A length rounded to two significant digits: enough to imitate, not enough to recognise. */
export function roundedLength(chars: number): number {
  if (chars < 100) return chars;
  const scale = 10 ** (Math.floor(Math.log10(chars)) - 1);
  return Math.round(chars / scale) * scale;
}

function text(role: TextSlot["$text"], value: string): TextSlot {
  return { $text: role, chars: roundedLength(value.length) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A text block (`{type: "text", text}`) with its text taken out; anything else is not sampled. */
function textParts(role: TextSlot["$text"], parts: unknown[]): ShapeValue[] {
  return parts.map((part) => {
    if (!isRecord(part) || part.type !== "text" || typeof part.text !== "string") throw new NotSampled();
    const shaped: { [key: string]: ShapeValue } = {};
    for (const [key, value] of Object.entries(part))
      shaped[key] = key === "text" ? text(role, part.text) : setting(value);
    return shaped;
  });
}

function message(value: unknown): ShapeValue {
  if (!isRecord(value) || typeof value.role !== "string" || !roles.has(value.role)) throw new NotSampled();
  const role = value.role as TextSlot["$text"];
  const shaped: { [key: string]: ShapeValue } = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === "role") shaped.role = role;
    else if (key === "content") {
      if (typeof field === "string") shaped.content = text(role, field);
      else if (Array.isArray(field)) shaped.content = textParts(role, field);
      else throw new NotSampled();
    } else if (key === "name" && typeof field === "string") shaped.name = { $id: field.length };
    else throw new NotSampled();
  }
  return shaped;
}

/** A setting's value: numbers, booleans and word-like strings as they are, objects field by field. */
function setting(value: unknown, key?: string): ShapeValue {
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "string") {
    if (key !== undefined && identifiers.has(key)) return { $id: value.length };
    if (settingValue.test(value)) return value;
    throw new NotSampled();
  }
  if (Array.isArray(value)) {
    if (value.length > 16) throw new NotSampled();
    return value.map((item) => setting(item));
  }
  if (isRecord(value)) {
    const shaped: { [key: string]: ShapeValue } = {};
    for (const [field, inner] of Object.entries(value)) shaped[field] = setting(inner, field);
    return shaped;
  }
  throw new NotSampled();
}

/** The shape of a body an agent was sent; undefined when the job cannot be imitated. */
export function shapeOf(dialect: Dialect, body: Record<string, unknown>): JobShape | undefined {
  try {
    const shaped: { [key: string]: ShapeValue } = {};
    for (const [key, value] of Object.entries(body)) {
      if (unimitable.has(key)) {
        // An explicit "no tools" is a setting like any other.
        if (key === "tool_choice" && value === "none") shaped[key] = value;
        else if (key === "n" && value === 1) shaped[key] = value;
        else return undefined;
      } else if (key === "messages") {
        if (!Array.isArray(value) || value.length === 0 || value.length > 64) return undefined;
        shaped.messages = value.map(message);
      } else if (key === "system") {
        if (typeof value === "string") shaped.system = text("system", value);
        else if (Array.isArray(value)) shaped.system = textParts("system", value);
        else return undefined;
      } else if (key === "stop" || key === "stop_sequences") {
        // Stop sequences are behaviour, not content, when short; long ones are not imitated.
        const stops = typeof value === "string" ? [value] : value;
        if (!Array.isArray(stops) || stops.some((stop) => typeof stop !== "string" || stop.length > 16))
          return undefined;
        shaped[key] = value as ShapeValue;
      } else shaped[key] = setting(value, key);
    }
    if (!Array.isArray(shaped.messages)) return undefined;
    return { dialect, body: shaped };
  } catch (error) {
    if (error instanceof NotSampled) return undefined;
    throw error;
  }
}

/** The texts a shape needs, in body order: who writes each and how long it is. */
export function textSlots(shape: JobShape): TextSlot[] {
  const slots: TextSlot[] = [];
  const walk = (value: ShapeValue) => {
    if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value !== null && typeof value === "object") {
      if ("$text" in value && typeof value.$text === "string") slots.push(value as TextSlot);
      else if (!("$id" in value)) for (const inner of Object.values(value)) walk(inner);
    }
  };
  walk(shape.body);
  return slots;
}

const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A body from a shape: each text slot filled in order from `texts`, each identifier a random one. */
export function fillShape(shape: JobShape, texts: readonly string[]): Record<string, unknown> {
  let next = 0;
  const fill = (value: ShapeValue): unknown => {
    if (Array.isArray(value)) return value.map(fill);
    if (value === null || typeof value !== "object") return value;
    if ("$text" in value && typeof value.$text === "string") {
      next += 1;
      return texts[next - 1] ?? "";
    }
    if ("$id" in value && typeof value.$id === "number")
      return Array.from({ length: value.$id }, () => idAlphabet[randomInt(idAlphabet.length)]).join("");
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, fill(inner)]));
  };
  return fill(shape.body) as Record<string, unknown>;
}

interface Reservoir {
  shapes: JobShape[];
  seen: number;
}

/**
 * The sample of real job shapes: each (model, format)'s reservoir holds a uniform sample of the
 * jobs seen (Vitter's algorithm R), so a canary's shape is drawn from the distribution of real
 * jobs, not from the last one (which would tie a canary to the job before it).
 */
export class JobShapes {
  readonly #reservoirs = new Map<string, Reservoir>();

  /** Adds a real job's body (as the agent was sent it) to the sample, when it can be imitated. */
  record(model: string, dialect: Dialect, body: Record<string, unknown>): void {
    const shape = shapeOf(dialect, body);
    if (!shape) return;
    const key = `${dialect}:${model}`;
    let reservoir = this.#reservoirs.get(key);
    if (!reservoir) {
      if (this.#reservoirs.size >= maxKeys) return;
      reservoir = { shapes: [], seen: 0 };
      this.#reservoirs.set(key, reservoir);
    }
    reservoir.seen += 1;
    if (reservoir.shapes.length < perKey) reservoir.shapes.push(shape);
    else {
      const slot = randomInt(reservoir.seen);
      if (slot < perKey) reservoir.shapes[slot] = shape;
    }
  }

  /** A shape drawn uniformly from the sample, or undefined before any job of the model was seen. */
  draw(model: string, dialect: Dialect): JobShape | undefined {
    const shapes = this.#reservoirs.get(`${dialect}:${model}`)?.shapes ?? [];
    return shapes.length === 0 ? undefined : shapes[randomInt(shapes.length)];
  }
}
