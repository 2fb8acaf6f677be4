import { and, desc, eq, lt } from "drizzle-orm";
import type { Database } from "../db/client";
import { catalogChanges, centralizedPrices, models } from "../db/schema";
import type { CentralizedUpstreamName } from "../env";
import { GatewayError } from "../errors/gateway-error";
import { bumpCatalogVersion, priceRecord } from "./apply-entries";
import type { ModelKind } from "./models";

export interface ModelEdit {
  ownedBy?: string | undefined;
  name?: string | undefined;
  kind?: ModelKind | undefined;
  contextWindow?: number | undefined;
  maxOutputTokens?: number | undefined;
  aliases?: string[] | undefined;
  inputModalities?: string[] | undefined;
  supportsTools?: boolean | undefined;
  supportsReasoning?: boolean | undefined;
  supportsStructuredOutput?: boolean | undefined;
  disabled?: boolean | undefined;
}

export interface PriceEdit {
  upstreamModelId?: string | undefined;
  inputPer1m: bigint;
  outputPer1m: bigint;
  cacheReadPer1m?: bigint | undefined;
  cacheWritePer1m?: bigint | undefined;
  /** A fixed price per request: the token rates are then zero. */
  requestPrice?: bigint | undefined;
}

type ModelRow = typeof models.$inferSelect;

const defined = <T extends object>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;

function modelRecord(row: ModelRow) {
  return {
    owned_by: row.ownedBy,
    name: row.name,
    kind: row.kind,
    context_window: row.contextWindow,
    max_output_tokens: row.maxOutputTokens,
    aliases: row.aliases,
    input_modalities: row.inputModalities,
    supports_tools: row.supportsTools,
    supports_reasoning: row.supportsReasoning,
    supports_structured_output: row.supportsStructuredOutput,
    disabled: row.disabled,
  };
}

/**
 * Adds a model or overrides its metadata (disabling and enabling included), recording the
 * row before and after. An edited model is the operator's: refreshes leave its metadata alone.
 */
export async function editModel(
  database: Database,
  modelId: string,
  edit: ModelEdit,
  actor: string,
): Promise<{ created: boolean }> {
  return database.transaction(async (transaction) => {
    const [before] = await transaction.select().from(models).where(eq(models.id, modelId)).for("update");
    const fields = defined(edit);
    if (!before) {
      if (edit.contextWindow === undefined || edit.maxOutputTokens === undefined)
        throw new GatewayError("bad_request", "a new model needs context_window and max_output_tokens");
      const [created] = await transaction
        .insert(models)
        .values({
          id: modelId,
          ownedBy: edit.ownedBy ?? "operator",
          contextWindow: edit.contextWindow,
          maxOutputTokens: edit.maxOutputTokens,
          ...fields,
          source: actor,
          operatorEdited: true,
        })
        .returning();
      if (!created) throw new Error("model insert returned no row");
      await transaction
        .insert(catalogChanges)
        .values({ actor, modelId, action: "model-added", after: modelRecord(created) });
      await bumpCatalogVersion(transaction);
      return { created: true };
    }
    const [after] = await transaction
      .update(models)
      .set({ ...fields, operatorEdited: true, updatedAt: new Date() })
      .where(eq(models.id, modelId))
      .returning();
    if (!after) throw new Error("model update returned no row");
    const action =
      edit.disabled === true && !before.disabled
        ? "model-disabled"
        : edit.disabled === false && before.disabled
          ? "model-enabled"
          : "model-updated";
    await transaction
      .insert(catalogChanges)
      .values({ actor, modelId, action, before: modelRecord(before), after: modelRecord(after) });
    await bumpCatalogVersion(transaction);
    return { created: false };
  });
}

/**
 * Sets what a provider charges for a model, pinned: refreshes never overwrite an operator's
 * price. Recorded with the old and new price. Requests already held keep the price they
 * were routed at; the next request pays this one.
 */
export async function setModelPrice(
  database: Database,
  modelId: string,
  provider: CentralizedUpstreamName,
  edit: PriceEdit,
  actor: string,
): Promise<void> {
  await database.transaction(async (transaction) => {
    const [model] = await transaction.select({ id: models.id }).from(models).where(eq(models.id, modelId));
    if (!model) throw new GatewayError("not_found", `model not found: ${modelId}`);
    const [before] = await transaction
      .select()
      .from(centralizedPrices)
      .where(and(eq(centralizedPrices.modelId, modelId), eq(centralizedPrices.provider, provider)))
      .for("update");
    const upstreamModelId = edit.upstreamModelId ?? before?.upstreamModelId ?? modelId;
    const values = {
      upstreamModelId,
      inputPer1m: edit.inputPer1m,
      outputPer1m: edit.outputPer1m,
      // Without a cache rate of its own, cached tokens bill as plain input.
      cacheReadPer1m: edit.cacheReadPer1m ?? edit.inputPer1m,
      cacheWritePer1m: edit.cacheWritePer1m ?? edit.inputPer1m,
      requestPrice: edit.requestPrice ?? null,
      source: actor,
      operatorPinned: true,
      updatedAt: new Date(),
    };
    await transaction
      .insert(centralizedPrices)
      .values({ modelId, provider, ...values })
      .onConflictDoUpdate({ target: [centralizedPrices.modelId, centralizedPrices.provider], set: values });
    await transaction.insert(catalogChanges).values({
      actor,
      modelId,
      provider,
      action: before ? "price-changed" : "price-added",
      before: before ? priceRecord(before) : null,
      after: priceRecord(values),
    });
    await bumpCatalogVersion(transaction);
  });
}

/** The change log, newest first, optionally for one model, paged by id. */
export async function listCatalogChanges(
  database: Database,
  options: { modelId?: string | undefined; before?: bigint | undefined; limit: number },
) {
  const conditions = [
    ...(options.modelId ? [eq(catalogChanges.modelId, options.modelId)] : []),
    ...(options.before !== undefined ? [lt(catalogChanges.id, options.before)] : []),
  ];
  return database
    .select()
    .from(catalogChanges)
    .where(conditions.length > 0 ? and(...conditions) : undefined)
    .orderBy(desc(catalogChanges.id))
    .limit(options.limit);
}
