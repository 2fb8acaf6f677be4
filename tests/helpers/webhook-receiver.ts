import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One POST a webhook receiver got. */
export interface ReceivedHook {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedHook[];
  close(): Promise<void>;
}

/** A local endpoint that records every request it gets and answers 204. */
export async function startWebhookReceiver(path: string): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** True when `Pod-Signature` (t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">) signs `hook` with `secret`. */
export function isSignedBy(hook: ReceivedHook | undefined, secret: string): boolean {
  const [, stamp, digest] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hook?.headers["pod-signature"])) ?? [];
  if (stamp === undefined || hook === undefined) return false;
  return createHmac("sha256", secret).update(`${stamp}.${hook.body}`).digest("hex") === digest;
}
