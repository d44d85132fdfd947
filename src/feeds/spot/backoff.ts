// Reconnect delays: exponential backoff with full jitter, so sockets dropped together by an exchange
// outage do not all come back in the same instant.

/** A delay in [0, min(capMs, baseMs·2^attempt)), drawn with `random` (0 ≤ r < 1). */
export function fullJitterDelay(
  attempt: number,
  baseMs: number,
  capMs: number,
  random: () => number,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30))
  return Math.floor(random() * ceiling)
}
