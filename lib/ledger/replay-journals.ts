import type { Database } from "../db/client";
import { log } from "../log";
import { leftJournals } from "./settlement-journal";
import { writeSettlements } from "./write-settlements";

const chunk = 500;

/**
 * Bills what dead instances served but never wrote: every settlement in their journals is
 * written (those already in the database are skipped, those it refuses are quarantined and
 * reported), then the journal is removed. A journal whose database cannot be reached is
 * kept for the next start.
 */
export async function replayJournals(
  database: Database,
  directory: string,
  ownInstanceId: string,
  isDead: (instanceId: string) => Promise<boolean>,
): Promise<string[]> {
  const unrecovered: string[] = [];
  for (const journal of leftJournals(directory, ownInstanceId)) {
    if (!(await isDead(journal.instanceId))) continue;
    let applied = 0;
    let left = 0;
    let quarantined = 0;
    for (let start = 0; start < journal.settlements.length && left === 0; start += chunk) {
      const written = await writeSettlements(
        database,
        journal.settlements.slice(start, start + chunk),
        (_s, result) => {
          applied += result.applied.size;
        },
      );
      left = written.left.length;
      quarantined += written.quarantined;
    }
    if (left > 0) {
      log.error("a journal left by an earlier process could not be replayed; kept for the next start", {
        instance: journal.instanceId,
      });
      unrecovered.push(journal.instanceId);
      continue;
    }
    journal.remove();
    if (journal.settlements.length > 0)
      log.warn("billed requests an earlier process served but had not written", {
        instance: journal.instanceId,
        journaled: journal.settlements.length,
        billedNow: applied,
        quarantined,
      });
    if (quarantined > 0)
      log.error("settlements the database refused were quarantined (see settlement_quarantine)", {
        instance: journal.instanceId,
        quarantined,
      });
  }
  return unrecovered;
}
