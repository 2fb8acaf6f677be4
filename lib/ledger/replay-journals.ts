import type { Database } from "../db/client";
import { log } from "../log";
import { forgetJournaled, journaledBy } from "./database-journal";
import type { LeaseSettlement } from "./settle-batch";
import { type JournalClaim, leftJournals } from "./settlement-journal";
import { writeSettlements } from "./write-settlements";

const chunk = 500;

interface Replayed {
  applied: number;
  quarantined: number;
  /** False when the database could not be reached: nothing may be released yet. */
  complete: boolean;
}

/** Writes a dead instance's settlements (those already in the ledger are skipped, refused ones quarantined). */
async function writeAll(database: Database, settlements: readonly LeaseSettlement[]): Promise<Replayed> {
  const replayed: Replayed = { applied: 0, quarantined: 0, complete: true };
  for (let start = 0; start < settlements.length; start += chunk) {
    const written = await writeSettlements(
      database,
      settlements.slice(start, start + chunk),
      (_s, result) => {
        replayed.applied += result.applied;
      },
    );
    replayed.quarantined += written.quarantined;
    if (written.left.length > 0) return { ...replayed, complete: false };
  }
  return replayed;
}

function report(instanceId: string, journaled: number, replayed: Replayed): void {
  if (journaled > 0)
    log.warn("billed requests an earlier process served but had not written", {
      instance: instanceId,
      journaled,
      billedNow: replayed.applied,
      quarantined: replayed.quarantined,
    });
  if (replayed.quarantined > 0)
    log.error("settlements the database refused were quarantined (see settlement_quarantine)", {
      instance: instanceId,
      quarantined: replayed.quarantined,
    });
}

/**
 * Bills what dead instances served against this database but never wrote, from the journal
 * files in `directory` that `claim` admits:
 * every settlement is written (those already in the database are skipped, those it refuses
 * are quarantined and reported), then the file is removed. A journal whose database cannot be
 * reached is kept; its instance ids are returned, so their holds stay until it is written.
 */
export async function replayJournals(
  database: Database,
  directory: string,
  claim: JournalClaim,
  isDead: (instanceId: string) => Promise<boolean>,
): Promise<string[]> {
  const unrecovered: string[] = [];
  for (const journal of leftJournals(directory, claim)) {
    if (!(await isDead(journal.instanceId))) continue;
    const replayed = await writeAll(database, journal.settlements);
    if (!replayed.complete) {
      log.error("a journal left by an earlier process could not be replayed; kept for the next start", {
        instance: journal.instanceId,
      });
      unrecovered.push(journal.instanceId);
      continue;
    }
    journal.remove();
    report(journal.instanceId, journal.settlements.length, replayed);
  }
  return unrecovered;
}

/**
 * Bills what one dead instance journaled in the shared database (`settlement_journal`), run
 * by whichever process finds it dead. True once all of it is in the ledger: only then may the
 * dead instance's leases be released.
 */
export async function recoverInstance(database: Database, instanceId: string): Promise<boolean> {
  const settlements = await journaledBy(database, instanceId);
  if (settlements.length === 0) return true;
  const replayed = await writeAll(database, settlements);
  if (!replayed.complete) return false;
  await forgetJournaled(database, instanceId);
  report(instanceId, settlements.length, replayed);
  return true;
}
