import type { z } from "zod";
import { badRequest } from "../errors/gateway-error";
import { readJsonBody } from "../http/read-body";

/** Reads a JSON body and validates it; every problem is listed in one 400. */
export async function readHostBody<T extends z.ZodType>(
  request: Request,
  schema: T,
  limit: number,
): Promise<z.infer<T>> {
  const parsed = schema.safeParse(await readJsonBody(request, limit));
  if (!parsed.success) {
    throw badRequest(
      parsed.error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; "),
    );
  }
  return parsed.data;
}
