/**
 * True once `work` has settled (either way), false if `ms` passed first (or `ms` is not
 * positive). The timer is cleared either way, so a wait that ended never holds the process.
 */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms <= 0) return false;
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    work.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  return settled;
}
