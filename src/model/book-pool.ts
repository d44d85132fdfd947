// Pooling the model with the venue's book (docs/model.md, "Pooling with the book"; issue 29): the
// book is evidence on P(up) worth as much as its state says. A wide book says little, an old one says
// what was true when it was quoted, and a one-sided book says what its one side says — never the
// crowd's full view. The weight is continuous in the book's prices and age, so the published
// probability never jumps when a side appears or vanishes.
import type { BookState } from '../domain/reading-model.ts'
import type { BookWeighting, PoolBucket } from './params.ts'

/** Logits are taken no closer to 0 and 1 than this: a decided model and a 0.1 ¢ mid stay finite. */
export const POOL_LOGIT_BOUND = 1e-4

export function logitOf(q: number): number {
  const c = Math.min(1 - POOL_LOGIT_BOUND, Math.max(POOL_LOGIT_BOUND, q))
  return Math.log(c / (1 - c))
}

/**
 * What a book says of P(up): the interval [1 − down ask, up ask] it quotes, its centre and its width,
 * and the share of the remaining time that passed since it was quoted. A side without an ask is its
 * limit, an ask of 100 ¢: an up ask of a alone says P(up) ≤ a (the interval [0, a]), exactly what a
 * two-sided book becomes as its down ask climbs to 100 ¢. Null when neither side has an ask.
 */
export type BookEvidence = { mid: number; spread: number; staleShare: number }

export function bookEvidence(book: BookState, msLeft: number): BookEvidence | null {
  if (book.upAskCents === null && book.downAskCents === null) return null
  const upper = (book.upAskCents ?? 100) / 100
  const lower = 1 - (book.downAskCents ?? 100) / 100
  const age = Math.max(0, book.ageMs)
  const left = Math.max(0, msLeft)
  return {
    mid: (upper + lower) / 2,
    // a crossed book (a tick of rounding) is as narrow as a book gets
    spread: Math.min(1, Math.max(0, upper - lower)),
    staleShare: age + left > 0 ? age / (age + left) : 0,
  }
}

/**
 * The weight of the book in the pool, in [0, 1]: (1 − spread)^spreadPower · (1 − staleShare)^agePower.
 * 1 for a fresh book one tick wide; 0 for a book spanning 0–100 ¢ (a lone ask of 100 ¢) or quoted
 * before most of the time left had passed. Powers of at least 1 (params check) keep both limits.
 */
export function bookWeight(e: BookEvidence, w: BookWeighting): number {
  return (1 - e.spread) ** w.spreadPower * (1 - e.staleShare) ** w.agePower
}

/**
 * The published P(up): with weight 1, the fitted pool logit p = a + b·logit(model) + c·logit(mid);
 * with weight 0, the model alone; in between, the straight line between the two in log-odds.
 */
export function poolWithBook(model: number, e: BookEvidence, bucket: PoolBucket, w: BookWeighting): number {
  return poolAtWeight(model, e.mid, bucket, bookWeight(e, w))
}

export function poolAtWeight(
  model: number,
  mid: number,
  bucket: Pick<PoolBucket, 'intercept' | 'model' | 'mid'>,
  weight: number,
): number {
  const lm = logitOf(model)
  const full = bucket.intercept + bucket.model * lm + bucket.mid * logitOf(mid)
  const z = lm + weight * (full - lm)
  return 1 / (1 + Math.exp(-z))
}
