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
  /** Requests answered 204 (a held one is not here until released). */
  received: ReceivedHook[];
  /** Requests that arrived, held ones included. */
  arrivals: number;
  /** A receiver started with `hold`: answers what it holds, and from now on answers at once. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A local endpoint that records every request it gets and answers 204; with `hold`, a slow
 * receiver: it reads each request and keeps it unanswered until `release()`.
 */
export async function startWebhookReceiver(
  path: string,
  options: { hold?: boolean; port?: number } = {},
): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  let holding = options.hold ?? false;
  const held: Array<() => void> = [];
  let arrivals = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      arrivals += 1;
      const answer = () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
        response.writeHead(204).end();
      };
      if (holding) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    received,
    get arrivals() {
      return arrivals;
    },
    release() {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** True when `Pod-Signature` (t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">) signs `hook` with `secret`. */
export function isSignedBy(hook: ReceivedHook | undefined, secret: string): boolean {
  const [, stamp, digest] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hook?.headers["pod-signature"])) ?? [];
  if (stamp === undefined || hook === undefined) return false;
  return createHmac("sha256", secret).update(`${stamp}.${hook.body}`).digest("hex") === digest;
}
