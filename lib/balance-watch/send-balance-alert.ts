import { createHmac } from "node:crypto";
import type { BalanceAlertEvent } from "@pod-gateway/contracts/balance-watch";
import { Agent, fetch } from "undici";
import { type PinnedTarget, pinPublicTarget, type ResolveHost } from "./webhook-target";

const defaultTimeoutMs = 10_000;

/** A connection to the pinned address only: the name is not resolved again when connecting. */
function pinnedAgent(target: PinnedTarget): Agent {
  return new Agent({
    connect: {
      lookup: (_hostname, options, callback) => {
        if (options.all) callback(null, [{ address: target.address, family: target.family }]);
        else callback(null, target.address, target.family);
      },
    },
  });
}

/** `Pod-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, as Stripe signs its webhooks. */
function signAlert(secret: string, body: string, timestamp: number): string {
  const digest = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  return `t=${timestamp},v1=${digest}`;
}

/** POSTs one balance alert to its owner's webhook (see postSignedWebhook). */
export function sendBalanceAlert(
  target: { url: string; secret: string; allowPrivate: boolean },
  event: BalanceAlertEvent,
  options: { resolve?: ResolveHost; timeoutMs?: number } = {},
): Promise<string> {
  return postSignedWebhook(target, event, { ...options, userAgent: "PodGateway-Alerts/1" });
}

/**
 * POSTs one event, signed, without following redirects (a redirect could point anywhere), to the
 * address its host was resolved to and checked at (webhook-target.ts), and says in a few words
 * how it went: the owner sees it on the dashboard (the operator, on the console).
 */
export async function postSignedWebhook(
  target: { url: string; secret: string; allowPrivate: boolean },
  event: object,
  options: { resolve?: ResolveHost; timeoutMs?: number; userAgent: string },
): Promise<string> {
  return (await deliverSignedWebhook(target, event, options)).summary;
}

/** How one signed POST went: the receiver's status (none when it never answered) and the words for it. */
export interface WebhookDelivery {
  status: number | undefined;
  summary: string;
}

/** {@link postSignedWebhook}, telling its caller the status too (a sender that retries needs it); `signal` ends it early. */
export async function deliverSignedWebhook(
  target: { url: string; secret: string; allowPrivate: boolean },
  event: object,
  options: { resolve?: ResolveHost; timeoutMs?: number; userAgent: string; signal?: AbortSignal },
): Promise<WebhookDelivery> {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  let agent: Agent | undefined;
  try {
    const pinned = await pinPublicTarget(target.url, target.allowPrivate, options.resolve);
    agent = pinnedAgent(pinned);
    const body = JSON.stringify(event);
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await fetch(pinned.url, {
      dispatcher: agent,
      method: "POST",
      redirect: "manual",
      signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
      headers: {
        "content-type": "application/json",
        "user-agent": options.userAgent,
        "pod-signature": signAlert(target.secret, body, Math.floor(Date.now() / 1000)),
      },
      body,
    });
    await response.body?.cancel();
    const summary = response.ok ? `delivered (HTTP ${response.status})` : `refused (HTTP ${response.status})`;
    return { status: response.status, summary };
  } catch (error) {
    if (error instanceof Error && error.name === "TimeoutError")
      return { status: undefined, summary: `no answer within ${timeoutMs / 1000} s` };
    return {
      status: undefined,
      summary: `not delivered: ${error instanceof Error ? error.message : "unknown error"}`,
    };
  } finally {
    agent?.destroy().catch(() => undefined);
  }
}
