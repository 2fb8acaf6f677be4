import { formatUsd, formatUtc } from "@/components/dashboard/format";
import { ScrollRegion } from "@/components/dashboard/scroll-region";
import { TableHead } from "@/components/dashboard/table-head";
import type { CatalogPrice } from "@/lib/catalog/models";
import { listCatalogChanges } from "@/lib/catalog/operator-edits";
import { listDisabledModels } from "@/lib/operator-console/console-reads";
import { describeChange } from "@/lib/operator-console/describe-change";
import { modelEndpoints } from "@/lib/routing/model-endpoints";
import { ActionButton } from "./action-button";
import { EnableModelForm, ModelForm, PriceForm } from "./catalog-forms";
import { ModelSources } from "./model-sources";
import type { OperatorConsoleSession } from "./operator-console-session";

const shown = 25;

/** The catalog: search, each model's prices and limits to edit, the disabled ones, and the change log. */
export async function CatalogView({ session, query }: { session: OperatorConsoleSession; query: string }) {
  const db = session.app.database.db;
  const needle = query.trim().toLowerCase();
  const matches = session.app.catalog.models.filter(
    (model) =>
      needle === "" ||
      model.id.toLowerCase().includes(needle) ||
      model.aliases.some((alias) => alias.toLowerCase().includes(needle)),
  );
  const [changes, disabled, sources] = await Promise.all([
    listCatalogChanges(db, { limit: 50 }),
    listDisabledModels(db),
    Promise.all(matches.slice(0, shown).map((model) => modelEndpoints(session.app, model))),
  ]);
  return (
    <>
      <section className="dash-section" aria-labelledby="catalog-search-title">
        <h2 id="catalog-search-title">Models</h2>
        <form className="dash-form dash-form--inline" method="get">
          <label htmlFor="catalog-q" className="dash-label">
            Search models
          </label>
          <input id="catalog-q" name="q" className="dash-input" defaultValue={query} placeholder="gpt-4o" />
          <button type="submit" className="dash-button">
            Search
          </button>
        </form>
        <p className="dash-muted">
          {matches.length} model{matches.length === 1 ? "" : "s"}
          {matches.length > shown ? `, the first ${shown} shown: narrow the search` : ""}. A price set here is
          pinned: refreshes leave it alone.{" "}
          <ActionButton path="catalog/refresh" label="Refresh prices now" done="Refreshed." />
        </p>
        <ul className="dash-catalog" data-testid="catalog-models">
          {matches.slice(0, shown).map((model, index) => (
            <li key={model.id} data-model={model.id}>
              <details>
                <summary>
                  <code>{model.id}</code>{" "}
                  <span className="dash-muted">
                    {byProvider(model.prices)
                      .map(
                        (price) =>
                          `${price.provider} ${formatUsd(price.inputPer1m)} / ${formatUsd(price.outputPer1m)}`,
                      )
                      .join(" · ") || "no centralized price"}
                  </span>
                </summary>
                <ModelSources model={model.id} endpoints={sources[index] ?? []} />
                <div className="dash-catalog__edit">
                  {byProvider(model.prices).map((price) => (
                    <PriceForm
                      key={price.provider}
                      model={model.id}
                      provider={price.provider}
                      inputPer1m={price.inputPer1m}
                      outputPer1m={price.outputPer1m}
                    />
                  ))}
                  <ModelForm
                    model={model.id}
                    contextWindow={model.contextWindow}
                    maxOutputTokens={model.maxOutputTokens}
                    disabled={false}
                  />
                </div>
              </details>
            </li>
          ))}
        </ul>
      </section>
      {disabled.length === 0 ? null : (
        <section className="dash-section" aria-labelledby="disabled-title">
          <h2 id="disabled-title">Disabled models</h2>
          <ul className="dash-catalog" data-testid="disabled-models">
            {disabled.map((id) => (
              <li key={id}>
                <code>{id}</code> <EnableModelForm model={id} />
              </li>
            ))}
          </ul>
        </section>
      )}
      <section className="dash-section" aria-labelledby="changes-title">
        <h2 id="changes-title">Change log</h2>
        <ScrollRegion label="Catalog change log">
          <table className="dash-table" data-testid="catalog-changes">
            <TableHead columns={["Time (UTC)", "Who", "Model", "What", "Change"]} />
            <tbody>
              {changes.map((change) => (
                <tr key={change.id.toString()} data-actor={change.actor}>
                  <td className="dash-table__time">{formatUtc(change.at)}</td>
                  <td>{change.actor}</td>
                  <td>
                    <code>{change.modelId}</code>
                    {change.provider ? <span className="dash-muted"> at {change.provider}</span> : null}
                  </td>
                  <td>{change.action}</td>
                  <td className="dash-wrap">{describeChange(change.before, change.after)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </section>
    </>
  );
}

/** A model's prices in a steady order (the catalog keeps them cheapest first, which a price edit reorders). */
function byProvider(prices: readonly CatalogPrice[]): CatalogPrice[] {
  return [...prices].sort((a, b) => a.provider.localeCompare(b.provider));
}
