import { badRequest } from "../errors/gateway-error";

const routingModes = ["auto", "marketplace-only", "centralized-only"] as const;
export type RoutingMode = (typeof routingModes)[number];

const routingModeHeader = "x-pod-routing-mode";

function isRoutingMode(value: string): value is RoutingMode {
  return (routingModes as readonly string[]).includes(value);
}

/** Reads `X-Pod-Routing-Mode` (case-insensitive); absent or empty means `auto`, anything unknown is a 400. */
export function parseRoutingMode(headers: Headers): RoutingMode {
  const raw = headers.get(routingModeHeader);
  if (raw === null || raw.trim() === "") return "auto";
  const value = raw.trim().toLowerCase();
  if (isRoutingMode(value)) return value;
  throw badRequest(
    `X-Pod-Routing-Mode must be one of ${routingModes.join(", ")}, got ${JSON.stringify(raw.slice(0, 40))}`,
    { param: "X-Pod-Routing-Mode", details: { valid_modes: [...routingModes] } },
  );
}
