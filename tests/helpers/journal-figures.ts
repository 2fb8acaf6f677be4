/**
 * The settlement journal's figures a gateway exposes at /metrics: what the journal-window tests
 * read to know how many answers went out unjournaled. A counter never bumped is not shown (0); a
 * gauge is always shown, so a missing one reads NaN and fails any comparison.
 */
export async function journalFigures(url: string, adminToken: string) {
  const metrics = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } });
  const text = await metrics.text();
  const read = (name: string, absent = 0) =>
    Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? absent);
  return {
    groupWaits: read("pod_journal_group_waits_total"),
    early: read("pod_journal_early_answers_total"),
    windowFull: read("pod_journal_window_full_total"),
    unjournaled: read("pod_journal_unjournaled_answers", Number.NaN),
    widest: read("pod_journal_unjournaled_answers_max", Number.NaN),
    bound: read("pod_journal_window_bound", Number.NaN),
    unjournaledMicrounits: read("pod_journal_unjournaled_microunits", Number.NaN),
    boundMicrounits: read("pod_journal_window_bound_microunits", Number.NaN),
  };
}
