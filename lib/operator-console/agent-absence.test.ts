import { describe, expect, it } from "vitest";
import { AgentAbsence } from "./agent-absence";

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 29, 5, 0, seconds));
const ms = (seconds: number) => at(seconds).getTime();

describe("AgentAbsence", () => {
  it("dates an agent that went away from its last heartbeat, not from when the pass noticed", () => {
    const absence = new AgentAbsence();
    expect(absence.observe(["a"], new Map([["a", at(10)]]), ms(12)).size).toBe(0);
    expect(absence.observe(["a"], new Map([["a", at(40)]]), ms(42)).size).toBe(0);
    expect(absence.observe(["a"], new Map(), ms(72)).get("a")).toEqual({ since: ms(40), heard: true });
    // Still away on the next pass: the same start, not moved on.
    expect(absence.observe(["a"], new Map(), ms(102)).get("a")).toEqual({ since: ms(40), heard: true });
  });

  it("dates an agent never heard from the first pass that found it away", () => {
    const absence = new AgentAbsence();
    expect(absence.observe(["b"], new Map(), ms(5)).get("b")).toEqual({ since: ms(5), heard: false });
    expect(absence.observe(["b"], new Map(), ms(35)).get("b")).toEqual({ since: ms(5), heard: false });
  });

  it("takes the host's recorded last-seen time when it is later than what this process heard", () => {
    const absence = new AgentAbsence();
    // Never heard here (a restart, or another replica held it): the recorded time.
    expect(absence.observe(["c"], new Map(), ms(100), new Map([["c", at(30)]])).get("c")).toEqual({
      since: ms(30),
      heard: true,
    });
    const other = new AgentAbsence();
    other.observe(["d"], new Map([["d", at(10)]]), ms(11));
    expect(other.observe(["d"], new Map(), ms(100), new Map([["d", at(60)]])).get("d")).toEqual({
      since: ms(60),
      heard: true,
    });
  });

  it("forgets an agent that came back, and a host no longer active", () => {
    const absence = new AgentAbsence();
    absence.observe(["a", "b"], new Map([["a", at(1)]]), ms(2));
    expect([...absence.observe(["a", "b"], new Map(), ms(30)).keys()].sort()).toEqual(["a", "b"]);
    expect([...absence.observe(["a", "b"], new Map([["a", at(50)]]), ms(51)).keys()]).toEqual(["b"]);
    // b suspended, a away again: a's absence starts at its new last heartbeat.
    const away = absence.observe(["a"], new Map(), ms(90));
    expect([...away.entries()]).toEqual([["a", { since: ms(50), heard: true }]]);
    // a suspended and activated again: what was heard before is not carried over.
    absence.observe([], new Map(), ms(100));
    expect(absence.observe(["a"], new Map(), ms(110)).get("a")).toEqual({ since: ms(110), heard: false });
  });
});
