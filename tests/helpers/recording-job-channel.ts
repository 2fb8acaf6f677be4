import type { GatewayMessage } from "@pod-gateway/contracts/agent-protocol";
import type { JobChannel } from "../../lib/marketplace/agent-jobs";

/** An agent socket as a list of the frames sent on it, and whether it is being read. */
export function recordingJobChannel(): {
  channel: JobChannel;
  sent: GatewayMessage[];
  socket: { paused: boolean };
} {
  const sent: GatewayMessage[] = [];
  const socket = { paused: false };
  const channel: JobChannel = {
    send: (message) => sent.push(message),
    pauseReading: () => {
      socket.paused = true;
    },
    resumeReading: () => {
      socket.paused = false;
    },
  };
  return { channel, sent, socket };
}

/** The one offer of the agent behind a recording channel (what its jobs are dispatched against). */
export const recordedAgentOffer = {
  providerId: "p1",
  modelId: "gpt-4o-mini",
  dialect: "openai" as const,
  inputPer1m: 1n,
  outputPer1m: 1n,
  maxConcurrent: 1,
  freeSlots: 1,
  tokensPerSecond: 0,
};
