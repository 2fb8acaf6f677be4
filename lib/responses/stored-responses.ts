import { and, eq, gt, lt, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { storedResponses } from "../db/schema";
import { GatewayError } from "../errors/gateway-error";
import { log } from "../log";
import type { Services } from "../services";
import type { TokenRecord } from "../tokens/find-token";
import { awaitWritten } from "./await-written";
import type { ResponseStoreServices } from "./pending-stores";

/**
 * Who may use a stored response: the key that made it, or its account's token (every response
 * of the token's keys). A key never sees the token's or another key's responses.
 */
export interface ResponseOwner {
  tokenId: string;
  /** Set when a further API key is asking (or made the response). */
  apiKeyId: string | undefined;
}

export const responseOwner = (record: TokenRecord): ResponseOwner => ({
  tokenId: record.id,
  apiKeyId: record.key?.id,
});

function ownedBy(owner: ResponseOwner, id: string): SQL | undefined {
  return and(
    eq(storedResponses.id, id),
    eq(storedResponses.tokenId, owner.tokenId),
    owner.apiKeyId === undefined ? undefined : eq(storedResponses.apiKeyId, owner.apiKeyId),
  );
}

export interface StorePolicy {
  retentionDays: number;
  maxBytes: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A Responses `input` as items: a bare string is one user message. */
function inputItems(input: unknown): unknown[] {
  if (typeof input === "string") return [{ type: "message", role: "user", content: input }];
  return Array.isArray(input) ? input : [];
}

/** A stored response this owner may use that has not expired, or undefined. */
async function findStoredResponse(database: Database, owner: ResponseOwner, id: string) {
  const [row] = await database
    .select()
    .from(storedResponses)
    .where(and(ownedBy(owner, id), gt(storedResponses.expiresAt, new Date())));
  return row;
}

/** A stored response this owner may use, once its write (here or on another replica) is done: see awaitWritten. */
export function findWrittenResponse(app: Services & ResponseStoreServices, owner: ResponseOwner, id: string) {
  return awaitWritten(app, id, () => findStoredResponse(app.database.db, owner, id));
}

/**
 * A Responses body that names `previous_response_id`, with the stored conversation (its
 * input, then its output) put before this turn's input. Another token's or key's response, an
 * expired one or an unknown id is a 404, exactly alike, so ids cannot be probed. A response
 * still being written (its answer is out, its INSERT is not) is waited for.
 */
export async function withPreviousResponse(
  app: Services & ResponseStoreServices,
  owner: ResponseOwner,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const previousId = body.previous_response_id;
  if (previousId === undefined || previousId === null) return body;
  if (typeof previousId !== "string" || previousId.length > 200) {
    throw new GatewayError("bad_request", "previous_response_id must be a response id", {
      param: "previous_response_id",
    });
  }
  const previous = await findWrittenResponse(app, owner, previousId);
  if (!previous) {
    throw new GatewayError("not_found", `previous response not found: ${previousId}`, {
      param: "previous_response_id",
    });
  }
  const output = Array.isArray(previous.response.output) ? previous.response.output : [];
  return { ...body, input: [...previous.inputItems, ...output, ...inputItems(body.input)] };
}

/**
 * Keeps an answered response for the key (or token) that asked. One larger than `maxBytes` (conversation and
 * answer together) is not kept: it is logged, and reading it later is a 404.
 */
export async function storeResponse(
  database: Database,
  input: { owner: ResponseOwner; requestBody: Record<string, unknown>; response: unknown },
  policy: StorePolicy,
): Promise<void> {
  const { response } = input;
  if (!isRecord(response) || typeof response.id !== "string" || response.store !== true) return;
  const items = inputItems(input.requestBody.input);
  const sizeBytes = Buffer.byteLength(JSON.stringify(items)) + Buffer.byteLength(JSON.stringify(response));
  if (sizeBytes > policy.maxBytes) {
    log.warn("response not stored: larger than RESPONSES_MAX_STORED_BYTES", { sizeBytes, id: response.id });
    return;
  }
  await database.insert(storedResponses).values({
    id: response.id,
    tokenId: input.owner.tokenId,
    apiKeyId: input.owner.apiKeyId ?? null,
    inputItems: items,
    response,
    sizeBytes,
    expiresAt: new Date(Date.now() + policy.retentionDays * 86_400_000),
  });
}

/** Deletes a stored response (once written, see awaitWritten); false when there is none this owner may use. */
export async function deleteStoredResponse(
  app: Services & ResponseStoreServices,
  owner: ResponseOwner,
  id: string,
): Promise<boolean> {
  const deleted = await awaitWritten(app, id, async () => {
    const rows = await app.database.db
      .delete(storedResponses)
      .where(ownedBy(owner, id))
      .returning({ id: storedResponses.id });
    return rows.length > 0 ? true : undefined;
  });
  return deleted === true;
}

/** Removes responses past their retention. */
export async function sweepExpiredResponses(database: Database): Promise<number> {
  const deleted = await database
    .delete(storedResponses)
    .where(lt(storedResponses.expiresAt, new Date()))
    .returning({ id: storedResponses.id });
  return deleted.length;
}
