import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import {
  type AgentMessage,
  closeCodes,
  type GatewayMessage,
  parseAgentFrame,
} from "@pod-gateway/contracts/agent-protocol";
import { type WebSocket, WebSocketServer } from "ws";
import type { CatalogIndex } from "../catalog/catalog-index";
import { log } from "../log";
import { noteTrustEvents } from "../trust/note-trust-events";
import type { TrustServices } from "../trust/trust-services";
import { bindAgent } from "./agent-binding";
import { reviewCapabilities } from "./agent-capabilities";
import { AgentJobs, type JobViolation } from "./agent-jobs";
import { AgentLastSeen } from "./agent-last-seen";
import { decodeAgentPubkey, newAuthNonce, verifyNonceSignature } from "./agent-signature";
import type { AgentConnectionHandle, MarketplaceRegistry } from "./registry";

/** What an agent session reads: the registry it joins, the catalog its offers are checked against. */
export interface MarketplaceServices extends TrustServices {
  routing: TrustServices["routing"] & { registry: MarketplaceRegistry };
  catalog: CatalogIndex;
}

const providerConnectPath = "/provider/connect";

/** An agent that has not answered the challenge by then is dropped. */
const authTimeoutMs = 10_000;
/** Job frames carry base64 backend bytes; anything bigger is not a sane chunk. */
const maxFrameBytes = 4 * 1024 * 1024;
/** Malformed frames that name no running job tolerated per connection before it is closed. */
const maxStrayViolations = 3;

/**
 * Serves provider agents on `server`'s upgrade path: `GET /provider/connect` becomes a
 * WebSocket that authenticates the agent's Ed25519 key, registers its capabilities with
 * the marketplace registry and carries jobs. Other upgrade requests are refused.
 */
export function attachProviderSocket(server: Server, app: MarketplaceServices): () => void {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: maxFrameBytes });
  const lastSeen = new AgentLastSeen(app.database.db);
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const pathname = (request.url ?? "/").split("?")[0];
    if (pathname !== providerConnectPath) {
      socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => {
      runAgentSession(app, ws, lastSeen);
    });
  };
  server.on("upgrade", onUpgrade);
  return () => {
    server.off("upgrade", onUpgrade);
    for (const client of sockets.clients) client.close(1001, "gateway shutting down");
    sockets.close();
  };
}

function send(ws: WebSocket, message: GatewayMessage): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
}

function runAgentSession(app: MarketplaceServices, ws: WebSocket, lastSeen: AgentLastSeen): void {
  const nonce = newAuthNonce();
  const { registry } = app.routing;
  let providerId: string | undefined;
  let agentVersion: string | undefined;
  /** The enrolled key the agent proved (base64): what its job attestations are signed with. */
  let agentPubkey: string | undefined;
  let authenticating = false;
  let handle: AgentConnectionHandle | undefined;
  let replaced = false;
  let reannouncing = false;
  let strayViolations = 0;
  const violate = (violation: JobViolation) => {
    if (providerId)
      noteTrustEvents(app, providerId, [
        {
          kind: "protocol_violation",
          detail: violation.reason,
          evidence: { job_id: violation.jobId },
        },
      ]).catch(() => undefined);
    const stray = !jobs.has(violation.jobId);
    if (violation.fatal || (stray && ++strayViolations > maxStrayViolations)) {
      log.warn("provider agent broke the protocol: disconnected", {
        provider: providerId,
        reason: violation.reason,
      });
      ws.close(closeCodes.protocolError, violation.reason.slice(0, 120));
    }
  };
  const jobs = new AgentJobs(
    {
      send: (message) => send(ws, message),
      pauseReading: () => ws.pause(),
      resumeReading: () => ws.resume(),
    },
    {
      deadlineMs: app.env.PROVIDER_JOB_DEADLINE_MS,
      firstChunkMs: app.env.PROVIDER_FIRST_CHUNK_MS,
      stallMs: app.env.PROVIDER_STALL_MS,
      onViolation: violate,
      onBroken: (breach) => {
        if (!providerId) return;
        noteTrustEvents(app, providerId, [
          {
            kind: breach.kind,
            detail: breach.detail,
            evidence: { job_id: breach.jobId, elapsed_ms: breach.elapsedMs, bytes_sent: breach.bytes },
          },
        ]).catch(() => undefined);
      },
    },
  );
  const authTimer = setTimeout(() => ws.close(closeCodes.authTimeout, "no auth_response"), authTimeoutMs);
  send(ws, { type: "auth_challenge", nonce: nonce.toString("base64") });

  const refuse = (reason: string) => {
    send(ws, { type: "auth_failed", reason });
    ws.close(closeCodes.authFailed, reason.slice(0, 120));
  };

  const authenticate = async (message: Extract<AgentMessage, { type: "auth_response" }>) => {
    const pubkey = decodeAgentPubkey(message.pubkey);
    if (!pubkey || !verifyNonceSignature(pubkey, nonce, message.signature)) {
      refuse("bad signature: sign the challenge nonce with the agent's Ed25519 key");
      return;
    }
    const binding = await bindAgent(app.database.db, message.pubkey, message.enrollment_code);
    if (binding.type === "refused") {
      refuse(binding.reason);
      return;
    }
    clearTimeout(authTimer);
    providerId = binding.providerId;
    agentVersion = message.agent_version;
    agentPubkey = message.pubkey;
    send(ws, { type: "auth_ok", provider_id: binding.providerId, status: binding.status });
    log.info("provider agent connected", { provider: providerId, agent_version: message.agent_version });
  };

  const onMessage = (message: AgentMessage) => {
    if (message.type === "auth_response") {
      if (providerId || authenticating) return;
      authenticating = true;
      authenticate(message)
        .catch((error: unknown) => {
          log.error("agent authentication failed", { error });
          refuse("internal error during authentication");
        })
        .finally(() => {
          authenticating = false;
        });
      return;
    }
    if (!providerId) return;
    switch (message.type) {
      case "capabilities": {
        const verdict = reviewCapabilities(app.catalog, message);
        send(ws, {
          type: "capabilities_ack",
          accepted: verdict.offers.map((offer) => offer.modelId),
          rejected: verdict.rejected,
        });
        // A repeated capabilities message replaces this session's own registration.
        reannouncing = handle !== undefined;
        handle = registry.connect({
          providerId,
          ...(agentVersion === undefined ? {} : { agentVersion }),
          offers: verdict.offers,
          ...(verdict.maxConcurrentTotal === undefined
            ? {}
            : { maxConcurrentTotal: verdict.maxConcurrentTotal }),
          transport: jobs.transport,
          sinkTransport: jobs.sinkTransport,
          onRemoved: () => {
            replaced = true;
            ws.close(closeCodes.retired, "the host left the marketplace (retired)");
          },
          onReplaced: () => {
            if (reannouncing) return;
            replaced = true;
            ws.close(closeCodes.superseded, "another agent connected with the same identity");
          },
        });
        reannouncing = false;
        lastSeen.seen(providerId, true);
        return;
      }
      case "heartbeat":
        handle?.heartbeat(message.tokens_per_sec_p50);
        lastSeen.seen(providerId);
        return;
      case "job_chunk":
        jobs.chunk(message.job_id, Buffer.from(message.data, "base64"), message.status, message.content_type);
        return;
      case "job_done":
        jobs.done(
          message.job_id,
          message.tokens,
          message.attestation && agentPubkey
            ? { ...message.attestation, pubkey: agentPubkey, job_id: message.job_id }
            : undefined,
        );
        return;
      case "job_error":
        jobs.error(message.job_id, message.error_code, message.message ?? "");
        return;
    }
  };

  ws.on("message", (data, isBinary) => {
    if (isBinary) return;
    const parsed = parseAgentFrame(Buffer.isBuffer(data) ? data.toString("utf8") : String(data));
    if (parsed.ok) {
      onMessage(parsed.message);
      return;
    }
    if (!providerId) return;
    const { jobId, reason } = parsed.violation;
    if (jobId !== undefined && jobs.has(jobId)) jobs.malformed(jobId, reason);
    else violate({ jobId: jobId ?? "", reason: `malformed frame: ${reason}`, fatal: false });
  });
  ws.on("close", () => {
    clearTimeout(authTimer);
    if (!replaced) handle?.disconnect();
    if (providerId && handle) lastSeen.closed(providerId);
    jobs.failAll("the provider agent disconnected");
    if (providerId) log.info("provider agent disconnected", { provider: providerId });
  });
  ws.on("error", (error) => log.warn("provider agent socket error", { error }));
}
