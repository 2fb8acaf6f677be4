import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import WebSocket from "ws";

/**
 * A provider agent written out by hand in the test: a real WebSocket client speaking the
 * agent protocol, whose every answer the test controls, so faults the real agent would
 * never commit (forged signatures, lies about token counts, silence) can be staged.
 */
export interface AgentKey {
  pubkey: string;
  privateKey: KeyObject;
}

export function newAgentKey(): AgentKey {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const x = publicKey.export({ format: "jwk" }).x ?? "";
  return { pubkey: Buffer.from(x, "base64url").toString("base64"), privateKey };
}

export interface ScriptedAgent {
  ws: WebSocket;
  /** Every message the gateway sent, in order. */
  received: Array<Record<string, unknown>>;
  send(message: Record<string, unknown>): void;
  /** Resolves with the next message of `type` (or one already received and not yet taken). */
  next(type: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export async function connectScriptedAgent(
  url: string,
  options: {
    key: AgentKey;
    enrollmentCode?: string;
    /** Signs something else than the nonce. */
    forge?: boolean;
  },
): Promise<ScriptedAgent> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/provider/connect`);
  const received: Array<Record<string, unknown>> = [];
  const taken = new Set<number>();
  const waiters: Array<{ type: string; resolve: (message: Record<string, unknown>) => void }> = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on("message", (data) => {
    const message = JSON.parse(data.toString()) as Record<string, unknown>;
    received.push(message);
    if (message.type === "auth_challenge") {
      const nonce = Buffer.from(String(message.nonce), "base64");
      const signed = options.forge ? Buffer.concat([nonce, Buffer.from("x")]) : nonce;
      ws.send(
        JSON.stringify({
          type: "auth_response",
          pubkey: options.key.pubkey,
          signature: sign(null, signed, options.key.privateKey).toString("base64"),
          agent_version: "scripted",
          ...(options.enrollmentCode ? { enrollment_code: options.enrollmentCode } : {}),
        }),
      );
    }
    const index = received.length - 1;
    const waiter = waiters.findIndex((item) => item.type === message.type);
    if (waiter >= 0) {
      taken.add(index);
      const [entry] = waiters.splice(waiter, 1);
      entry?.resolve(message);
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return {
    ws,
    received,
    send: (message) => ws.send(JSON.stringify(message)),
    next(type, timeoutMs = 10_000) {
      const index = received.findIndex((message, i) => message.type === type && !taken.has(i));
      if (index >= 0) {
        taken.add(index);
        return Promise.resolve(received[index] as Record<string, unknown>);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${type} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          type,
          resolve: (message) => {
            clearTimeout(timer);
            resolve(message);
          },
        });
      });
    },
    closed,
    close: () => ws.close(),
  };
}

/** An OpenAI chat.completion.chunk SSE frame with `text`. */
export function openAiDelta(text: string): string {
  return `data: ${JSON.stringify({
    id: "chatcmpl-scripted",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-4o-mini",
    choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
  })}\n\n`;
}

export function openAiUsage(prompt: number, completion: number): string {
  return `data: ${JSON.stringify({
    id: "chatcmpl-scripted",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-4o-mini",
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  })}\n\n`;
}

export const b64 = (text: string) => Buffer.from(text).toString("base64");

/**
 * Text of exactly `tokens` o200k tokens (`word word word …`, one token each for short common
 * words): what an honest agent's reported counts are measured against.
 */
export function textOfTokens(tokens: number, word = "ok"): string {
  return tokens <= 0 ? "" : `${word}${` ${word}`.repeat(tokens - 1)}`;
}
