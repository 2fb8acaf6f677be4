import type { AppContext } from "../app-context";
import type { CatalogModel } from "../catalog/models";
import { dispatchHttp } from "../providers/http-dispatch";
import type { Candidate } from "./candidate";

/** Every configured centralized provider that lists the model, cheapest first. */
export function centralizedCandidates(app: AppContext, model: CatalogModel): Candidate[] {
  const candidates: Candidate[] = [];
  for (const price of app.catalog.pricesFor(model)) {
    const upstream = app.upstreams.get(price.provider);
    if (!upstream) continue;
    candidates.push({
      route: "centralized",
      providerId: upstream.name,
      dialect: upstream.dialect,
      upstreamModelId: price.upstreamModelId,
      price,
      dispatch: (body, options) => dispatchHttp(upstream, body, options),
    });
  }
  return candidates;
}
