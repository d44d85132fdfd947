// Exponential backoff with full jitter: retries from many clients spread out instead of arriving
// together, which matters against a venue whose 429 carries no Retry-After (venue facts §1.10).

export type BackoffOptions = { baseMs: number; capMs: number }

/** Delay before retry number `retry` (0 for the first): uniform in [0, min(cap, base·2^retry)). */
export function retryDelayMs(retry: number, opts: BackoffOptions, random: () => number): number {
  const ceiling = Math.min(opts.capMs, opts.baseMs * 2 ** retry)
  return Math.floor(random() * ceiling)
}
