import type { z } from "zod";
import { badRequest, GatewayError } from "../../errors/gateway-error";

function describeFirstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid body";
  const path = issue.path.map(String).join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
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
