import { badRequest, GatewayError } from "../errors/gateway-error";

/** Methods the gateway answers; anything else (TRACE, CONNECT, made-up verbs) is a 405 at once. */
const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export type TargetCheck = { ok: true; pathname: string } | { ok: false; error: GatewayError };

/**
 * Checks a raw request line before anything routes on it. Only origin-form targets in
 * canonical form pass: an absolute-form target (`GET http://host/…`) would otherwise be
 * resolved against another origin, and a path with `.`/`..` or empty segments would be
 * normalised by the URL parser after routing decided it was not an API path, reaching a
 * handler by a side door. Such paths are refused, not normalised.
 */
export function checkRequestTarget(method: string | undefined, target: string | undefined): TargetCheck {
  if (!method || !knownMethods.has(method))
    return {
      ok: false,
      error: new GatewayError("method_not_allowed", `method ${method ?? "(none)"} is not supported`),
    };
  if (!target?.startsWith("/"))
    return { ok: false, error: badRequest("the request target must be a path starting with /") };
  const queryAt = target.indexOf("?");
  const pathname = queryAt === -1 ? target : target.slice(0, queryAt);
  if (pathname.includes("\\"))
    return { ok: false, error: badRequest("the path must not contain a backslash") };
  const segments = pathname.slice(1).split("/");
  for (const [index, segment] of segments.entries()) {
    if (segment !== "" && !segment.includes("%") && !segment.startsWith(".")) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return { ok: false, error: badRequest("malformed percent-encoding in the path") };
    }
    if (decoded === "." || decoded === ".." || (segment === "" && index < segments.length - 1))
      return { ok: false, error: badRequest("the path is not canonical (empty, . or .. segments)") };
  }
  return { ok: true, pathname };
}
