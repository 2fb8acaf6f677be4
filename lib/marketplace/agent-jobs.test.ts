import type { GatewayMessage } from "@pod-gateway/contracts/agent-protocol";
import { describe, expect, it } from "vitest";
import { recordedAgentOffer as offer, recordingJobChannel } from "../../tests/helpers/recording-job-channel";
import { AgentJobs } from "./agent-jobs";

function setup(highWaterMarkBytes = 1024) {
  const { channel, sent, socket } = recordingJobChannel();
  const jobs = new AgentJobs(channel, { deadlineMs: 60_000, highWaterMarkBytes });
  return { jobs, sent, socket };
}

async function startJob(jobs: AgentJobs, sent: GatewayMessage[]) {
  const pending = jobs.transport(offer, JSON.stringify({ stream: true }), {
    signal: new AbortController().signal,
    forwardHeaders: {},
  });
  const job = sent.find((message) => message.type === "job");
  if (job?.type !== "job") throw new Error("no job sent");
  jobs.chunk(job.job_id, Buffer.from("data: first\n\n"), 200);
  return { id: job.job_id, response: await pending };
}

describe("AgentJobs backpressure", () => {
  it("asks the agent to pause a job its caller is not reading, and to resume once it reads", async () => {
    const { jobs, sent, socket } = setup();
    const { id, response } = await startJob(jobs, sent);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    for (let i = 0; i < 4; i += 1) jobs.chunk(id, Buffer.alloc(512, 120));
    expect(sent.filter((message) => message.type === "job_pause")).toEqual([
      { type: "job_pause", job_id: id },
    ]);
    expect(socket.paused).toBe(false);
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    for (let i = 0; i < 4; i += 1) await reader.read();
    expect(sent.at(-1)).toEqual({ type: "job_resume", job_id: id });
  });

  it("stops reading the socket when an agent ignores the pause, and reads again once drained", async () => {
    const { jobs, sent, socket } = setup();
    const { id, response } = await startJob(jobs, sent);
    for (let i = 0; i < 20; i += 1) jobs.chunk(id, Buffer.alloc(1024, 120));
    expect(socket.paused).toBe(true);
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    for (let i = 0; i < 21; i += 1) await reader.read();
    expect(socket.paused).toBe(false);
  });

  it("a caller that cancels the body cancels the job at the agent", async () => {
    const { jobs, sent } = setup();
    const { id, response } = await startJob(jobs, sent);
    await response.body?.cancel();
    expect(sent.at(-1)).toEqual({ type: "job_cancel", job_id: id });
    expect(jobs.size).toBe(0);
  });
});
