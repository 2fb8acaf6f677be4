import type { DirectMessage } from "@pod-gateway/contracts/replica-protocol";
import { describe, expect, it } from "vitest";
import { recordedAgentOffer as offer, recordingJobChannel } from "../../tests/helpers/recording-job-channel";
import { AgentJobs } from "./agent-jobs";
import { HostedJobs } from "./hosted-jobs";

/** A hosted job's home side: HostedJobs over a real AgentJobs whose agent socket is a message list. */
function setup(window: number, delivered: (message: DirectMessage) => boolean = () => true) {
  const { channel, sent: toAgent, socket } = recordingJobChannel();
  const toCaller: DirectMessage[] = [];
  const agent = new AgentJobs(channel, { deadlineMs: 60_000, highWaterMarkBytes: 1024 });
  const hosted = new HostedJobs(
    async (_replica, message) => {
      toCaller.push(message);
      return delivered(message);
    },
    (job, options, sink) => agent.sinkTransport(offer, job.body, { ...options, forwardHeaders: {} }, sink),
  );
  const start = (body: object) => {
    hosted.start({
      type: "job",
      job: "job-1",
      from: "caller",
      providerId: "p1",
      connection: "c1",
      modelId: "gpt-4o-mini",
      body: JSON.stringify(body),
      window,
    });
    const sent = toAgent.find((message) => message.type === "job");
    if (sent?.type !== "job") throw new Error("no job reached the agent");
    return sent.job_id;
  };
  const bytesTo = () =>
    toCaller.reduce(
      (sum, message) => sum + ("data" in message ? Buffer.from(message.data, "base64").byteLength : 0),
      0,
    );
  return { agent, hosted, toAgent, toCaller, socket, start, bytesTo };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("HostedJobs: an agent's frames published to the caller's replica", () => {
  it("a reply whose end comes in the same turn as its bytes goes as one start carrying its end", async () => {
    const { agent, toCaller, start } = setup(4096);
    const id = start({ stream: false });
    agent.chunk(id, Buffer.from('{"ok":true}'), 200, "application/json");
    agent.done(id, { output: 3 });
    await turn();
    expect(toCaller).toEqual([
      {
        type: "start",
        job: "job-1",
        status: 200,
        contentType: "application/json",
        data: Buffer.from('{"ok":true}').toString("base64"),
        end: { tokens: { output: 3 } },
      },
    ]);
  });

  it("publishes no further than the window ahead of the caller's acks, pauses the agent, resumes on acks", async () => {
    const { agent, hosted, toAgent, toCaller, socket, start, bytesTo } = setup(2048);
    const id = start({ stream: true });
    agent.chunk(id, Buffer.alloc(1024, 97), 200, "text/event-stream");
    for (let i = 0; i < 3; i += 1) agent.chunk(id, Buffer.alloc(1024, 98));
    // Two windows' worth came; one window went out, and the agent was asked to pause.
    expect(bytesTo()).toBe(2048);
    expect(toAgent.filter((message) => message.type === "job_pause")).toHaveLength(1);
    expect(socket.paused).toBe(false);
    // An agent that ignores the pause: past eight times the high-water mark its socket is not read.
    for (let i = 0; i < 9; i += 1) agent.chunk(id, Buffer.alloc(1024, 99));
    expect(socket.paused).toBe(true);
    expect(bytesTo()).toBe(2048);
    hosted.ack("job-1", 2048);
    expect(bytesTo()).toBe(4096);
    hosted.ack("job-1", 4096 + 2048 * 3);
    // Acks past what was sent count only what was sent: the window still bounds what goes out.
    expect(bytesTo()).toBe(6144);
    for (let acked = 6144; bytesTo() < 13 * 1024; acked = bytesTo()) hosted.ack("job-1", acked);
    expect(socket.paused).toBe(false);
    expect(toAgent.at(-1)).toEqual({ type: "job_resume", job_id: id });
    agent.done(id, undefined);
    expect(toCaller.at(-1)).toEqual({ type: "end", job: "job-1" });
    expect(hosted.size).toBe(0);
  });

  it("a cancel from the caller's replica cancels the job at the agent and publishes nothing more", async () => {
    const { agent, hosted, toAgent, toCaller, start } = setup(4096);
    const id = start({ stream: true });
    agent.chunk(id, Buffer.from("data: one\n\n"), 200, "text/event-stream");
    const published = toCaller.length;
    hosted.cancel("job-1");
    expect(toAgent.at(-1)).toEqual({ type: "job_cancel", job_id: id });
    agent.chunk(id, Buffer.from("data: late\n\n"));
    await turn();
    expect(toCaller).toHaveLength(published);
    expect(agent.size).toBe(0);
    expect(hosted.size).toBe(0);
  });

  it("an agent that fails mid-reply: the bytes it sent go first, then the failure", async () => {
    const { agent, toCaller, start } = setup(4096);
    const id = start({ stream: false });
    agent.chunk(id, Buffer.from('{"partial":'), 200, "application/json");
    agent.error(id, "backend_error", "the backend crashed");
    expect(toCaller.map((message) => message.type)).toEqual(["start", "fail"]);
    expect(toCaller[0]).toMatchObject({ data: Buffer.from('{"partial":').toString("base64") });
    expect(toCaller[1]).toMatchObject({ code: "backend_error" });
  });

  it("a job the agent refuses before answering fails with the agent's code, so the caller can fail over", async () => {
    const { agent, toCaller, start } = setup(4096);
    const id = start({ stream: false });
    agent.error(id, "overloaded", "no free slot");
    await turn();
    expect(toCaller).toEqual([
      {
        type: "fail",
        job: "job-1",
        code: "overloaded",
        message: "agent job failed (overloaded): no free slot",
      },
    ]);
  });

  it("a chunk not known to reach the caller's replica ends the job: cancelled at the agent, the caller told once, nothing more sent", async () => {
    let chunks = 0;
    const { agent, toAgent, toCaller, start } = setup(64 * 1024, (message) => {
      if (message.type === "chunk") chunks += 1;
      return !(message.type === "chunk" && chunks >= 1);
    });
    const id = start({ stream: true });
    agent.chunk(id, Buffer.from("data: one\n\n"), 200, "text/event-stream");
    agent.chunk(id, Buffer.from("data: two\n\n"));
    await turn();
    agent.chunk(id, Buffer.from("data: three\n\n"));
    await turn();
    expect(toCaller.map((message) => message.type)).toEqual(["start", "chunk", "fail"]);
    expect(toCaller[2]).toMatchObject({ type: "fail", job: "job-1", code: "disconnected" });
    expect(toAgent.filter((message) => message.type === "job_cancel")).toHaveLength(1);
  });

  it("an end that is not known to arrive is followed by a failure, so the caller does not wait for it forever", async () => {
    const { agent, toAgent, toCaller, start } = setup(4096, (message) => message.type !== "start");
    const id = start({ stream: false });
    agent.chunk(id, Buffer.from('{"ok":true}'), 200, "application/json");
    agent.done(id, { output: 3 });
    await turn();
    await turn();
    expect(toCaller.map((message) => message.type)).toEqual(["start", "fail"]);
    // The agent had finished: nothing to cancel.
    expect(toAgent.filter((message) => message.type === "job_cancel")).toHaveLength(0);
  });
});
