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

/** Throws when the URL's host resolves to any private address (unless those are allowed). */
export async function assertPublicTarget(urlText: string, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = new URL(urlText).hostname.replace(/^\[|\]$/g, "");
  const addresses =
    isIP(host) !== 0 ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  if (addresses.length === 0 || addresses.some(isPrivateAddress))
    throw new Error(`${host} resolves to a private address`);
}
