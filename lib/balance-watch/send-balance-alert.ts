import { createHmac } from "node:crypto";
import type { BalanceAlertEvent } from "@pod-gateway/contracts/balance-watch";
import { assertPublicTarget } from "./webhook-target";

const timeoutMs = 10_000;

/** `Pod-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, as Stripe signs its webhooks. */
function signAlert(secret: string, body: string, timestamp: number): string {
  const digest = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  return `t=${timestamp},v1=${digest}`;
}

/**
 * POSTs one alert, signed, without following redirects (a redirect could point anywhere), and
 * says in a few words how it went: the owner sees it on the dashboard.
 */
export async function sendBalanceAlert(
  target: { url: string; secret: string; allowPrivate: boolean },
  event: BalanceAlertEvent,
): Promise<string> {
  try {
    await assertPublicTarget(target.url, target.allowPrivate);
    const body = JSON.stringify(event);
    const response = await fetch(target.url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        "content-type": "application/json",
        "user-agent": "PodGateway-Alerts/1",
        "pod-signature": signAlert(target.secret, body, Math.floor(Date.now() / 1000)),
      },
      body,
    });
    await response.body?.cancel();
    return response.ok ? `delivered (HTTP ${response.status})` : `refused (HTTP ${response.status})`;
  } catch (error) {
    if (error instanceof Error && error.name === "TimeoutError") return "no answer within 10 s";
    return `not delivered: ${error instanceof Error ? error.message : "unknown error"}`;
  }
}
