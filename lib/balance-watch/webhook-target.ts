import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { badRequest } from "../errors/gateway-error";

/**
 * Where a low-balance alert may be POSTed. The URL comes from a customer, so without
 * BALANCE_ALERT_ALLOW_PRIVATE_URLS it must be https and its host must resolve only to public
 * addresses, checked when the alert is sent (a name can be re-pointed after it is saved): the
 * gateway never becomes a way to reach its own network.
 */

const privateRanges = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  privateRanges.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  privateRanges.addSubnet(network, prefix, "ipv6");

export function isPrivateAddress(address: string): boolean {
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is that IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return isPrivateAddress(mapped);
  const family = isIP(address);
  if (family === 0) return true;
  return privateRanges.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The URL as saved: parsed, bounded, https unless private URLs are allowed; throws a 400. */
export function parseWebhookUrl(text: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badRequest("webhook_url: not a URL", { param: "webhook_url" });
  }
  if (url.username || url.password)
    throw badRequest("webhook_url: credentials in the URL are not accepted", { param: "webhook_url" });
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:"))
    throw badRequest("webhook_url: must be an https:// URL", { param: "webhook_url" });
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivate && (host === "localhost" || (isIP(host) !== 0 && isPrivateAddress(host))))
    throw badRequest("webhook_url: must be a public address", { param: "webhook_url" });
  return url.toString();
}

/** One address a name resolves to, as node:dns answers. */
interface ResolvedAddress {
  address: string;
  family: number;
}

/** How a host name is resolved: every address (the system resolver by default; tests inject a rebinding one). */
export type ResolveHost = (host: string) => Promise<ResolvedAddress[]>;

const systemResolve: ResolveHost = (host) => lookup(host, { all: true });

/**
 * Where an alert is sent: the URL and the one address its host was resolved to and checked at.
 * The request connects to that address (`connect.lookup` answers it), never resolving the name
 * again, so a short-lived DNS answer cannot pass the check and then point the connection at a
 * private address (DNS rebinding). TLS still names the host, so its certificate is checked.
 */
export interface PinnedTarget {
  url: string;
  address: string;
  family: number;
}

/** Resolves the URL's host once; throws when it has no address or any is private (unless those are allowed). */
export async function pinPublicTarget(
  urlText: string,
  allowPrivate: boolean,
  resolve: ResolveHost = systemResolve,
): Promise<PinnedTarget> {
  const host = new URL(urlText).hostname.replace(/^\[|\]$/g, "");
  const family = isIP(host);
  const addresses = family !== 0 ? [{ address: host, family }] : await resolve(host);
  const first = addresses[0];
  if (!first) throw new Error(`${host} has no address`);
  if (!allowPrivate && addresses.some((entry) => isPrivateAddress(entry.address)))
    throw new Error(`${host} resolves to a private address`);
  return { url: urlText, address: first.address, family: first.family };
}
