import { routeNames } from "@pod-gateway/contracts/activity";
import type { ModelEndpoint } from "@pod-gateway/contracts/model-endpoints";
import { formatUsd } from "@/components/dashboard/format";
import { ScrollRegion } from "@/components/dashboard/scroll-region";
import { TableHead } from "@/components/dashboard/table-head";

const figure = (value: number | null, unit: string) => (value === null ? "–" : `${value} ${unit}`);

/**
 * A model's sources as routing sees them now: the same values as `GET /v1/models/{id}/endpoints`
 * (route kind, price, measured time to first token, throughput, uptime, health), in try order.
 */
export function ModelSources({ model, endpoints }: { model: string; endpoints: readonly ModelEndpoint[] }) {
  if (endpoints.length === 0) return <p className="dash-muted">No source can serve it now.</p>;
  return (
    <ScrollRegion label={`Sources of ${model}`}>
      <table className="dash-table" data-testid="model-sources" data-sources-of={model}>
        <caption className="dash-muted">Sources, in try order (measured on real traffic)</caption>
        <TableHead
          columns={[
            "Source",
            "Route",
            { numeric: "Input / 1M" },
            { numeric: "Output / 1M" },
            { numeric: "TTFT" },
            { numeric: "Throughput" },
            { numeric: "Uptime" },
            "Health",
          ]}
        />
        <tbody>
          {endpoints.map((endpoint) => (
            <tr key={`${endpoint.route}|${endpoint.tag}`} data-source={endpoint.tag}>
              <td>
                <code>{endpoint.tag}</code>
              </td>
              <td>{routeNames[endpoint.route]}</td>
              <td className="dash-table__num">{formatUsd(endpoint.input_per_1m)}</td>
              <td className="dash-table__num">{formatUsd(endpoint.output_per_1m)}</td>
              <td className="dash-table__num" data-figure="ttft">
                {figure(endpoint.performance.ttft_ms, "ms")}
              </td>
              <td className="dash-table__num" data-figure="throughput">
                {endpoint.performance.tokens_per_second === null &&
                endpoint.announced_tokens_per_second !== null
                  ? `${endpoint.announced_tokens_per_second} tok/s announced`
                  : figure(endpoint.performance.tokens_per_second, "tok/s")}
              </td>
              <td className="dash-table__num" data-figure="uptime">
                {figure(endpoint.uptime_last_30m, "%")}
              </td>
              <td>{endpoint.status === 0 ? "routed" : "demoted"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
