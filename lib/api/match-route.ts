import { badRequest } from "../errors/gateway-error";
import type { RouteDefinition } from "./route-definition";

interface CompiledRoute {
  route: RouteDefinition;
  /** A literal segment, or null for a `:param`. */
  segments: (string | null)[];
  names: string[];
}

export type RouteMatch =
  | { type: "matched"; route: RouteDefinition; params: Record<string, string> }
  /** The path exists with other methods: a 405 in the dialect of that path. */
  | { type: "method_not_allowed"; allowed: string[]; route: RouteDefinition }
  | { type: "not_found" };

function compile(route: RouteDefinition): CompiledRoute {
  const parts = route.path.split("/").slice(1);
  return {
    route,
    segments: parts.map((part) => (part.startsWith(":") ? null : part)),
    names: parts.filter((part) => part.startsWith(":")).map((part) => part.slice(1)),
  };
}

/** Negative when `a` is the more specific: the first segment where they differ is literal in `a`. */
function bySpecificity(a: CompiledRoute, b: CompiledRoute): number {
  for (let index = 0; index < Math.min(a.segments.length, b.segments.length); index += 1) {
    const literalA = a.segments[index] !== null;
    const literalB = b.segments[index] !== null;
    if (literalA !== literalB) return literalA ? -1 : 1;
  }
  return 0;
}

/** A control character (NUL above all) is never part of an id, and Postgres text cannot hold NUL. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const controlCharacter = /[\u0000-\u001f\u007f]/;

function decodeSegment(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw badRequest("malformed percent-encoding in the path");
  }
  if (controlCharacter.test(decoded)) throw badRequest("the path must not contain control characters");
  return decoded;
}

function literalsMatch(segments: readonly (string | null)[], parts: readonly string[]): boolean {
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index];
    if (segment !== null && segment !== parts[index + 1]) return false;
  }
  return true;
}

/** The route's parameters, each decoded (malformed encoding throws); undefined if one is empty. */
function paramsOf(entry: CompiledRoute, parts: readonly string[]): Record<string, string> | undefined {
  const values: string[] = [];
  for (let index = 0; index < entry.segments.length; index += 1)
    if (entry.segments[index] === null) values.push(decodeSegment(parts[index + 1] ?? ""));
  if (values.includes("")) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < entry.names.length; index += 1)
    params[entry.names[index] ?? ""] = values[index] ?? "";
  return params;
}

/** Matches paths against a route table the way Next's file router does: literal segments first. */
export function createRouteMatcher(routes: readonly RouteDefinition[]) {
  const compiled = routes.map(compile);
  // Only routes with as many segments as the path can match it. Each list is sorted on its own:
  // between paths of different lengths the comparison is no order at all (a prefix can tie with
  // two routes it does not rank), and one sort of the whole table let an added route put
  // `/fund/card/:session` before `/fund/card/quote`.
  const bySegmentCount = new Map<number, CompiledRoute[]>();
  for (const entry of compiled) {
    const list = bySegmentCount.get(entry.segments.length) ?? [];
    list.push(entry);
    bySegmentCount.set(entry.segments.length, list);
  }
  for (const list of bySegmentCount.values()) list.sort(bySpecificity);
  const firstSegments = new Set(compiled.map((entry) => entry.segments[0]).filter((part) => part != null));

  return {
    /** True for paths the API owns even when no route matches (a JSON 404, never a page). */
    owns(pathname: string): boolean {
      return firstSegments.has(pathname.split("/")[1] ?? "");
    },

    match(method: string, pathname: string): RouteMatch {
      // One trailing slash is tolerated, as it always was.
      const trimmed = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
      // parts[0] is the empty string before the leading slash: segment i is parts[i + 1]. Loops,
      // not array callbacks: this runs on every request.
      const parts = trimmed.split("/");
      let pathMatch: CompiledRoute | undefined;
      const allowed: string[] = [];
      for (const entry of bySegmentCount.get(parts.length - 1) ?? []) {
        if (!literalsMatch(entry.segments, parts)) continue;
        if (pathMatch && bySpecificity(pathMatch, entry) < 0) break;
        pathMatch ??= entry;
        if (entry.route.method !== method) {
          allowed.push(entry.route.method);
          continue;
        }
        const params = paramsOf(entry, parts);
        if (params) return { type: "matched", route: entry.route, params };
      }
      return pathMatch
        ? { type: "method_not_allowed", allowed, route: pathMatch.route }
        : { type: "not_found" };
    },
  };
}
