// Pooling the model with the venue's book (docs/model.md, "The model" 7; issue 29): the book is
// evidence on P(up) worth as much as its state says. A wide book says little, an old one says what
// was true when it was quoted, and a one-sided book says what its one side says — a bound. The weight is continuous in the book's prices and age, so the published
// probability never jumps when a side appears or vanishes.
import { spotAtCrowdLag } from '../domain/crowd-lag.ts'
import type { BookState, ModelInputs } from '../domain/reading-model.ts'
import type { BookWeighting, PoolBucket } from './params.ts'

/** Logits are taken no closer to 0 and 1 than this: a decided model and a 0.1 ¢ mid stay finite. */
export const POOL_LOGIT_BOUND = 1e-4

export function logitOf(q: number): number {
  const c = Math.min(1 - POOL_LOGIT_BOUND, Math.max(POOL_LOGIT_BOUND, q))
  return Math.log(c / (1 - c))
}

/** The book a reading saw, or for a caller that knows only the mid, a fresh book of no width at it. */
export function bookStateOf(input: Pick<ModelInputs, 'book' | 'midProbability'>): BookState | null {
  if (input.book) return input.book
  const mid = input.midProbability
  return mid === null ? null : { upAskCents: mid * 100, downAskCents: 100 - mid * 100, ageMs: 0 }
}

/**
 * The book moved by `shift` in log-odds, each ask as a probability: what a crowd that quoted the spot
 * of some seconds ago would quote now, where `shift` is the model's own move since that spot. A side
 * without an ask stays without one; every ask moves continuously with the shift.
 */
export function shiftedBook(book: BookState, shift: number): BookState {
  // unbounded logits: an ask of 100 ¢ (no offer) and a bid of 0 stay exactly where they are
  const moved = (q: number) => 1 / (1 + Math.exp(-(Math.log(q / (1 - q)) + shift)))
  return {
    upAskCents: book.upAskCents === null ? null : moved(book.upAskCents / 100) * 100,
    // the down ask is one minus the up bid: the bid moves as the ask does
    downAskCents: book.downAskCents === null ? null : 100 - moved(1 - book.downAskCents / 100) * 100,
    ageMs: book.ageMs,
  }
}

/**
 * The book a reading pools with where its crowd quotes late (crowd-lag.ts): moved by the model's own
 * move between the spot of the crowd's lag before the book's instant and the reading's spot.
 * `aloneAt` prices the model alone at another spot. The book as quoted where either spot is unknown.
 */
export function lagShiftedBook(
  input: Pick<ModelInputs, 'spotsBeforeBook' | 'crowdLagSeconds'>,
  book: BookState,
  modelAloneUp: number,
  aloneAt: (spotDollars: number) => number,
): BookState {
  const then = spotAtCrowdLag(input)
  if (then === null) return book
  return shiftedBook(book, logitOf(modelAloneUp) - logitOf(aloneAt(then)))
}

/**
 * What a book says of P(up): the interval [1 − down ask, up ask] it quotes, its width, and the share
 * of the remaining time that passed since it was quoted. A side without an ask is its limit, an ask
 * of 100 ¢: an up ask of a alone says P(up) ≤ a (the interval [0, a]), exactly what a two-sided book
 * becomes as its down ask climbs to 100 ¢. Null when neither side has an ask.
 */
export type BookEvidence = { lower: number; upper: number; spread: number; staleShare: number }

export function bookEvidence(book: BookState, msLeft: number): BookEvidence | null {
  if (book.upAskCents === null && book.downAskCents === null) return null
  let upper = (book.upAskCents ?? 100) / 100
  let lower = 1 - (book.downAskCents ?? 100) / 100
  // a crossed book (a tick of rounding) is as narrow as a book gets: its centre
  if (lower > upper) lower = upper = (lower + upper) / 2
  const age = Math.max(0, book.ageMs)
  const left = Math.max(0, msLeft)
  return {
    lower,
    upper,
    spread: upper - lower,
    staleShare: age + left > 0 ? age / (age + left) : 0,
  }
}

/**
 * The book's reading of P(up) given the model's: the model's probability where the book's interval
 * allows it, else the interval's nearer end. A book says only that P(up) lies between its bid and
 * its ask: a 20/80 book is no evidence for 50 %, and a lone up ask at a only that P(up) ≤ a. A book
 * one tick wide reads its mid, whatever the model says.
 */
export function bookReading(model: number, e: BookEvidence): number {
  return Math.min(e.upper, Math.max(e.lower, model))
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
 * How much of the book's weight is left where the model is near certain: (4·p(1 − p))^certaintyPower,
 * 1 at even odds and falling to 0 as the model's p nears 0 or 1. A crowd that errs in probability
 * (a shrink toward even odds) is furthest off in log-odds at the extremes — a 1 % truth quoted at 6 ¢
 * is 1.8 logits away — so a pool linear in log-odds would carry that error into the long shots;
 * whether a venue's crowd errs so is the fit's to say (0: it does not).
 */
export function certaintyShare(model: number, w: BookWeighting): number {
  const k = w.certaintyPower ?? 0
  return k === 0 ? 1 : Math.max(0, 4 * model * (1 - model)) ** k
}

/** The book's weight in the pool for this model probability: its state's weight times the share certainty leaves. */
export function poolWeight(model: number, e: BookEvidence, w: BookWeighting): number {
  return bookWeight(e, w) * certaintyShare(model, w)
}

/**
 * The published P(up), at the weight poolWeight: with weight 1, the fitted pool logit p = a + b·logit(model) + c·logit(the
 * book's reading); with weight 0, the model alone; in between, the straight line between the two in
 * log-odds. Every part moves continuously with the asks, so a side vanishing is no jump.
 */
export function poolWithBook(model: number, e: BookEvidence, bucket: PoolBucket, w: BookWeighting): number {
  return poolAtWeight(model, bookReading(model, e), bucket, poolWeight(model, e, w))
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
