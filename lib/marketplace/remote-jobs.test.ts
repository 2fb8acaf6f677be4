import type { DirectMessage } from "@pod-gateway/contracts/replica-protocol";
import { describe, expect, it } from "vitest";
import { recordedAgentOffer as offer, recordingJobChannel } from "../../tests/helpers/recording-job-channel";
import { AgentJobError, AgentJobs } from "./agent-jobs";
import { HostedJobs } from "./hosted-jobs";
import { RemoteJobs } from "./remote-jobs";

const target = { replica: "home", providerId: "p1", connection: "c1", modelId: "gpt-4o-mini" };
const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A caller's replica (RemoteJobs) and a home (HostedJobs over a real AgentJobs) joined by a
 * line that delivers every message but may say a job was not delivered: what a publish whose
 * reply timed out after Redis had passed it on looks like.
 */
function pair(jobReported: "delivered" | "not delivered" | "send failed") {
  const { channel, sent: toAgent } = recordingJobChannel();
  const agent = new AgentJobs(channel, { deadlineMs: 60_000, highWaterMarkBytes: 1024 });
  const lines: DirectMessage[] = [];
  let remote: RemoteJobs | undefined;
  const hosted = new HostedJobs(
    async (_replica, message) => {
      lines.push(message);
      if (
        message.type !== "job" &&
        message.type !== "ack" &&
        message.type !== "cancel" &&
        message.type !== "replaced"
      )
        remote?.receive(message);
      return true;
    },
    (job, options, sink) => agent.sinkTransport(offer, job.body, { ...options, forwardHeaders: {} }, sink),
  );
  remote = new RemoteJobs({
    self: "caller",
    send: async (_replica, message) => {
      lines.push(message);
      if (message.type === "job") hosted.start(message);
      if (message.type === "cancel") hosted.cancel(message.job);
      if (message.type === "ack") hosted.ack(message.job, message.bytes);
      if (message.type !== "job" || jobReported === "delivered") return true;
      if (jobReported === "send failed") throw new Error("line broke");
      return false;
    },
  });
  return { remote, hosted, toAgent, lines };
}

describe("RemoteJobs: a job not known to be delivered", () => {
  for (const how of ["not delivered", "send failed"] as const) {
    it(`(${how}) fails at once for the caller, and a cancel follows it so the home's agent does not run it for nobody`, async () => {
      const { remote, hosted, toAgent, lines } = pair(how);
      const controller = new AbortController();
      const dispatched = remote.dispatch(target, JSON.stringify({ stream: true }), {
        signal: controller.signal,
        forwardHeaders: {},
      });
      await expect(dispatched).rejects.toMatchObject({ code: "unreachable" });
      await expect(dispatched).rejects.toBeInstanceOf(AgentJobError);
      await turn();
      expect(lines.map((message) => message.type)).toEqual(["job", "cancel"]);
      const job = toAgent.find((message) => message.type === "job");
      expect(job?.type).toBe("job");
      expect(toAgent.filter((message) => message.type === "job_cancel")).toHaveLength(1);
      expect(hosted.size).toBe(0);
      expect(remote.size).toBe(0);
    });
  }

  it("a delivered job is not cancelled", async () => {
    const { remote, hosted, toAgent, lines } = pair("delivered");
    const controller = new AbortController();
    remote
      .dispatch(target, JSON.stringify({ stream: false }), { signal: controller.signal, forwardHeaders: {} })
      .catch(() => undefined);
    await turn();
    expect(lines.map((message) => message.type)).toEqual(["job"]);
    expect(toAgent.filter((message) => message.type === "job_cancel")).toHaveLength(0);
    expect(hosted.size).toBe(1);
    controller.abort();
    await turn();
    expect(toAgent.filter((message) => message.type === "job_cancel")).toHaveLength(1);
  });
});

describe("RemoteJobs: a home taken for dead", () => {
  it("fails the job for the caller and cancels it at a home that was only late, so the agent's slot is freed", async () => {
    const { remote, hosted, toAgent, lines } = pair("delivered");
    const controller = new AbortController();
    const dispatched = remote.dispatch(target, JSON.stringify({ stream: true }), {
      signal: controller.signal,
      forwardHeaders: {},
    });
    await turn();
    expect(hosted.size).toBe(1);
    remote.failUnless((replica) => replica !== "home", "the replica holding the agent stopped answering");
    await expect(dispatched).rejects.toMatchObject({ code: "disconnected" });
    await turn();
    expect(lines.map((message) => message.type)).toEqual(["job", "cancel"]);
    expect(toAgent.filter((message) => message.type === "job_cancel")).toHaveLength(1);
    expect(hosted.size).toBe(0);
    expect(remote.size).toBe(0);
  });
});
