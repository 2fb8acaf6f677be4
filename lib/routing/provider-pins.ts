import { badRequest } from "../errors/gateway-error";
import { isUuid } from "../ids";
import { pinnableCentralizedNames } from "../providers/centralized-providers";
import type { RoutingMode } from "./routing-mode";

const providersHeader = "x-pod-providers";

/** One entry of `X-Pod-Providers`: a centralized provider name or a marketplace/relay provider id. */
export type ProviderPin = { kind: "centralized"; name: string } | { kind: "provider-id"; id: string };

export function pinKey(pin: ProviderPin): string {
  return pin.kind === "centralized" ? pin.name : pin.id;
}

const pinnableNames: readonly string[] = pinnableCentralizedNames;

/**
 * Reads `X-Pod-Providers`: comma-separated, order is the try order. Names are
 * case-insensitive, empty entries and repeats are dropped; an absent or blank header means
 * no pin. Syntax only: whether a provider id is enrolled is checked by `checkPinsKnown`.
 */
export function parseProviderPins(headers: Headers): ProviderPin[] | undefined {
  const raw = headers.get(providersHeader);
  if (raw === null) return undefined;
  const seen = new Set<string>();
  const pins: ProviderPin[] = [];
  const unknown: string[] = [];
  for (const part of raw.split(",")) {
    const value = part.trim().toLowerCase();
    if (value === "" || seen.has(value)) continue;
    seen.add(value);
    if (pinnableNames.includes(value)) pins.push({ kind: "centralized", name: value });
    else if (isUuid(value)) pins.push({ kind: "provider-id", id: value });
    else unknown.push(part.trim());
  }
  if (unknown.length > 0) throw unknownProviders(unknown);
  return pins.length === 0 ? undefined : pins;
}

/** Rejects pins that contradict the routing mode: the reference service's 400 for pin + marketplace-only, and ours for a provider id with centralized-only. */
export function checkPinsAgainstMode(pins: ProviderPin[] | undefined, mode: RoutingMode): void {
  if (!pins) return;
  if (mode === "marketplace-only") {
    throw badRequest(
      "X-Pod-Providers cannot be combined with X-Pod-Routing-Mode: marketplace-only; a pin already decides who serves",
      { param: "X-Pod-Providers" },
    );
  }
  const ids = pins.filter((pin) => pin.kind === "provider-id").map(pinKey);
  if (mode === "centralized-only" && ids.length > 0) {
    throw badRequest(
      `X-Pod-Routing-Mode: centralized-only excludes the marketplace provider ids pinned in X-Pod-Providers: ${ids.join(", ")}`,
      { param: "X-Pod-Providers" },
    );
  }
}

/** Every pinned provider id must belong to an enrolled provider; a typo must never look like an outage. */
export function checkPinsKnown(pins: ProviderPin[] | undefined, enrolledIds: ReadonlySet<string>): void {
  const unknown = (pins ?? [])
    .filter((pin) => pin.kind === "provider-id" && !enrolledIds.has(pin.id))
    .map(pinKey);
  if (unknown.length > 0) throw unknownProviders(unknown);
}

function unknownProviders(unknown: string[]) {
  return badRequest(
    `unknown provider in X-Pod-Providers: ${unknown.join(", ")}. Valid names: ${pinnableNames.join(", ")}, or a marketplace or key-relay provider id (UUID) from GET /v1/providers`,
    { param: "X-Pod-Providers", details: { unknown_providers: unknown, valid_names: [...pinnableNames] } },
  );
}
