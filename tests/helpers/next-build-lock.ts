import { existsSync, readdirSync, readlinkSync, realpathSync } from "node:fs";

/**
 * True when another process has `lockPath` (a build's `.next/lock`) open. Next holds that file
 * locked for the whole of a build and removes it after, so an open handle is a build in progress,
 * while a file left by a killed build is open nowhere (its lock died with it). Read from /proc;
 * where there is no /proc, false (the caller then tries the build and reads Next's refusal).
 */
export function lockHeldByAnotherProcess(lockPath: string): boolean {
  if (!existsSync(lockPath) || !existsSync("/proc/self/fd")) return false;
  const target = realpathSync(lockPath);
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    let handles: string[];
    try {
      handles = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const handle of handles) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${handle}`) === target) return true;
      } catch {
        // closed meanwhile
      }
    }
  }
  return false;
}
