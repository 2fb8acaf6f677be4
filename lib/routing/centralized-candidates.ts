import type { CatalogModel } from "../catalog/models";
import type { Candidate } from "../providers/candidate";
import { dispatchHttp } from "../providers/http-dispatch";
import { dispatchSimulator, simulatorProviderName } from "../providers/simulator";
import type { RoutingServices } from "./routing-state";

/** Every configured centralized provider that lists the model, cheapest first; the dev simulator last. */
export function centralizedCandidates(app: RoutingServices, model: CatalogModel): Candidate[] {
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
  const cheapest = app.catalog.pricesFor(model)[0];
  if (app.env.POD_SIMULATOR && cheapest) {
    candidates.push({
      route: "centralized",
      providerId: simulatorProviderName,
      dialect: "openai",
      upstreamModelId: model.id,
      // Billed like the cheapest real source, so the simulator shows exactly what billing does.
      price: cheapest,
      dispatch: (body, options) => dispatchSimulator(body, options),
    });
  }
  return candidates;
}
