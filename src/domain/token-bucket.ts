// Token-bucket arithmetic as GCRA (decisions §5): a bucket is one number, its theoretical arrival
// time (TAT); the caller passes the time in, so the maths is pure and testable without waiting.
export type BucketPolicy = {
  /** capacity: requests an idle client may send at once */
  burst: number
  /** continuous refill rate, tokens per second */
  perSec: number
}

export type BucketStep = {
  allowed: boolean
  /** whole tokens left after this request (0 when refused) */
  remaining: number
  /** seconds until one token is available, rounded up, at least 1 */
  retryAfterS: number
  /** the bucket's new theoretical arrival time (epoch ms), to store for the next request */
  tat: number
}

// Float noise guard: (B−1)·T / T must come out as B−1, not 18.999999999.
const EPSILON = 1e-9

/** Takes one token from the bucket whose TAT is `tat` (undefined: a full bucket) at time `now` (ms). */
export function takeToken(tat: number | undefined, now: number, policy: BucketPolicy): BucketStep {
  const interval = 1000 / policy.perSec
  const span = policy.burst * interval
  // A TAT more than one full span ahead can only come from a wall clock that stepped backwards;
  // clamping keeps such a step from locking a client out for longer than an empty bucket would.
  const start = Math.min(Math.max(tat ?? now, now), now + span)
  const next = start + interval
  const allowAt = next - span
  if (now < allowAt) {
    return { allowed: false, remaining: 0, retryAfterS: secondsUntil(allowAt, now), tat: start }
  }
  const remaining = Math.floor((now - allowAt) / interval + EPSILON)
  return { allowed: true, remaining, retryAfterS: secondsUntil(next + interval - span, now), tat: next }
}

/** True when the bucket is back at capacity: storing it is the same as forgetting it. */
export function bucketIsFull(tat: number, now: number): boolean {
  return tat <= now
}

function secondsUntil(at: number, now: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000 - EPSILON))
}
