import type { z } from "zod";
import { badRequest, GatewayError } from "../../errors/gateway-error";

type Issue = z.core.$ZodIssue;

/**
 * A union failure ("Invalid input") says nothing useful; descend into the branch that got
 * furthest, so the caller reads e.g. `messages.0.content.0.type: … expected "text"`.
 */
function deepestIssue(issue: Issue, prefix: PropertyKey[]): { issue: Issue; path: PropertyKey[] } {
  const path = [...prefix, ...issue.path];
  if (issue.code !== "invalid_union") return { issue, path };
  const candidates = issue.errors.flatMap((branch) => branch.map((inner) => deepestIssue(inner, path)));
  const best = candidates.reduce<{ issue: Issue; path: PropertyKey[] } | undefined>(
    (current, candidate) => (current && current.path.length >= candidate.path.length ? current : candidate),
    undefined,
  );
  return best ?? { issue, path };
}

function describeFirstIssue(error: z.ZodError): string {
  const first = error.issues[0];
  if (!first) return "invalid body";
  const { issue, path } = deepestIssue(first, []);
  const where = path.map(String).join(".");
  return where ? `${where}: ${issue.message}` : issue.message;
}

/** A caller's body we cannot translate is the caller's mistake: 400 with the failing path. */
export function parseRequestBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success) throw badRequest(describeFirstIssue(result.error), { cause: result.error });
  return result.data;
}

/** An upstream body we cannot read is the upstream's fault: 502, never the caller's 400. */
export function parseUpstreamBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success) {
    throw new GatewayError(
      "upstream_error",
      `upstream returned an unreadable body (${describeFirstIssue(result.error)})`,
      {
        cause: result.error,
      },
    );
  }
  return result.data;
}
