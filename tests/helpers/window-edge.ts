/**
 * Rate limits count in fixed windows of a minute (`Math.floor(now / 60_000)`): a test that
 * counts several requests against one limit fails if they straddle a window's end, where the
 * count starts over. This waits out the current window when fewer than `marginMs` are left in it.
 */
export async function clearOfWindowEdge(windowMs = 60_000, marginMs = 15_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
