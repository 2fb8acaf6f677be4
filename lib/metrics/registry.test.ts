import { describe, expect, it } from "vitest";
import { Counter, Histogram } from "./registry";

describe("metrics registry", () => {
  it("keys a series by its labels in name order, escaped as the exposition format wants", () => {
    const counter = new Counter("pod_things_total", "Things.");
    counter.inc({ route: "relay", kind: 'say "hi"\nback\\slash' });
    counter.inc({ kind: 'say "hi"\nback\\slash', route: "relay" }, 2);
    expect(counter.value({ route: "relay", kind: 'say "hi"\nback\\slash' })).toBe(3);
    expect(counter.render()).toContain(
      'pod_things_total{kind="say \\"hi\\"\\nback\\\\slash",route="relay"} 3',
    );
  });

  it("keeps an unlabelled series and a histogram's buckets apart", () => {
    const counter = new Counter("pod_plain_total", "Plain.");
    counter.inc();
    expect(counter.render()).toContain("pod_plain_total 1");
    const histogram = new Histogram("pod_seconds", "Seconds.", [0.1, 1]);
    histogram.observe({ provider: "openai" }, 0.5);
    const text = histogram.render();
    expect(text).toContain('pod_seconds_bucket{provider="openai",le="0.1"} 0');
    expect(text).toContain('pod_seconds_bucket{provider="openai",le="1"} 1');
    expect(text).toContain('pod_seconds_count{provider="openai"} 1');
  });
});
