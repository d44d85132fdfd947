// The pool reads the book's state (issue 29): a wide, stale or one-sided book is worth what it says,
// the shipped parameters leave the model alone as a book becomes uninformative, and the published
// probability moves continuously as the book does — a side vanishing included.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { MinuteClose } from '../domain/price-history.ts'
import type { BookState, ModelInputs } from '../domain/reading-model.ts'
import {
  bookEvidence,
  bookReading,
  bookWeight,
  certaintyShare,
  logitOf,
  poolAtWeight,
  poolWithBook,
  shiftedBook,
} from './book-pool.ts'
import { pricedFromRanges } from './dynamics.ts'
import { V2_PARAMS } from './models.ts'
import type { PoolBucket } from './params.ts'
import { createSettlementMeanModel, settlementMeanProbability } from './settlement-mean-model.ts'

const MINUTE = 60_000
const OPEN = Date.parse('2026-11-24T15:00:00Z')

/**
 * What the spot feed saw: `live`, every minute whole (its range: priced with the ranged dynamics and
 * the main pool), or `minute`, one-minute closes alone (one-minute history: the one-minute pool).
 */
type Feed = 'live' | 'minute'
const FEEDS: readonly Feed[] = ['live', 'minute']

/** A day of closes of a seeded walk (σ ≈ 5 bp a minute) ending at the reading. */
function closes(end: number, feed: Feed): MinuteClose[] {
  let seed = 11
  let px = 90_000
  const out: MinuteClose[] = []
  for (let m = end - 1_440 * MINUTE; m <= end; m += MINUTE) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    px *= Math.exp(0.0005 * (seed / 2 ** 31 - 0.5) * 3.46)
    const range = feed === 'live' ? { highDollars: px * 1.0003, lowDollars: px * 0.9997 } : {}
    out.push({ at: m, priceDollars: px, ...range })
  }
  return out
}

function inputs(
  minute: number,
  spotOverStrike: number,
  book: BookState | null,
  feed: Feed = 'live',
): ModelInputs {
  const at = OPEN + minute * MINUTE
  const c = closes(at, feed)
  const spot = (c.at(-1) as MinuteClose).priceDollars
  return {
    spotDollars: spot,
    spotObservedAt: at,
    strikeDollars: spot / spotOverStrike,
    opensAt: OPEN,
    expiresAt: OPEN + 15 * MINUTE,
    closes: c,
    basisSamples: [],
    midProbability:
      book?.upAskCents != null && book.downAskCents != null
        ? (book.upAskCents + 100 - book.downAskCents) / 200
        : null,
    ...(book ? { book } : {}),
  }
}

const fresh = (up: number | null, down: number | null): BookState => ({
  upAskCents: up,
  downAskCents: down,
  ageMs: 0,
})
const published = (minute: number, ratio: number, book: BookState | null, feed: Feed = 'live') =>
  settlementMeanProbability(inputs(minute, ratio, book, feed), V2_PARAMS)

/** The book moved a tenth of a cent at a time along `path`; the largest step of the published P(up). */
function largestStep(minute: number, ratio: number, path: BookState[], feed: Feed): number {
  let prev: number | null = null
  let largest = 0
  for (const book of path) {
    const p = published(minute, ratio, book, feed).probabilityUp
    if (prev !== null) largest = Math.max(largest, Math.abs(p - prev))
    prev = p
  }
  return largest
}

/** Tenths of a cent from a to b inclusive. */
const tenths = (a: number, b: number): number[] =>
  Array.from({ length: Math.round((b - a) * 10) + 1 }, (_, i) => Math.round(a * 10 + i) / 10)

/**
 * The bound the continuity tests hold the published probability to, per 0.1 ¢ move of the book. The
 * largest steps are at the edge, where one tick is a large change of evidence: a 1 ¢ book's down ask
 * falling from 0.2 to 0.1 ¢ halves the long shot's price (its log-odds move by 0.7), and with the
 * model far from the book (0.38 against 99.9 ¢) the pool follows by its mid coefficient times that:
 * about 0.024 for the main pool (the book's coefficient at most 0.34), about 0.04 for the one-minute
 * pool, which leans on a real book up to 0.67 at eight to fourteen minutes (and wholly in the last).
 * A jump — a side appearing or vanishing — is held to no step at all (asserted exactly below).
 */
const STEP_BOUND: Record<Feed, number> = { live: 0.03, minute: 0.05 }

describe('the book in the pool', () => {
  it('reads a lone ask as its limit: a missing side is an ask of 100 ¢, so P(up) ≤ the up ask', () => {
    const lone = bookEvidence(fresh(30, null), 5 * MINUTE)
    assert.deepEqual(lone, { lower: 0, upper: 0.3, spread: 0.3, staleShare: 0 })
    assert.deepEqual(bookEvidence(fresh(30, 100), 5 * MINUTE), lone)
    // what it says given the model: the bound, and nothing where the model is inside it
    assert.equal(bookReading(0.6, lone!), 0.3)
    assert.equal(bookReading(0.2, lone!), 0.2)
    // a 20/80 book is no evidence for 50 %; a one-tick book reads its mid whatever the model says
    assert.equal(bookReading(0.7, bookEvidence(fresh(80, 80), MINUTE)!), 0.7)
    assert.equal(bookReading(0.9, bookEvidence(fresh(50, 50), MINUTE)!), 0.5)
    // the real contests' one-sided minute: up decided, a 0.1 ¢ down ask alone
    const decided = bookEvidence(fresh(null, 0.1), MINUTE)
    assert.ok(decided && Math.abs(decided.lower - 0.999) < 1e-12 && decided.upper === 1)
    assert.equal(bookEvidence(fresh(null, null), MINUTE), null)
  })

  it('weighs a book less the wider and the older it is, and not at all at 100 ¢ wide', () => {
    const w = V2_PARAMS.book
    const at = (up: number, down: number, ageMs: number, left = 5 * MINUTE) =>
      bookWeight(bookEvidence({ upAskCents: up, downAskCents: down, ageMs }, left)!, w)
    assert.ok(at(50.5, 50.5, 0) > at(60, 60, 0))
    assert.ok(at(60, 60, 0) > at(80, 80, 0), 'a 20/80 book is not evidence for 50 %')
    assert.ok(at(50.5, 50.5, 0) > at(50.5, 50.5, 30_000))
    assert.ok(
      at(50.5, 50.5, 30_000, 10 * MINUTE) > at(50.5, 50.5, 30_000, MINUTE),
      'age counts against the time left',
    )
    assert.equal(at(100, 100, 0), 0)
  })

  it('lets the mid pull less as the model nears certainty, by the fitted power alone', () => {
    const w = { spreadPower: 1, agePower: 1 }
    const fading = { ...w, certaintyPower: 0.5 }
    assert.equal(certaintyShare(0.5, fading), 1)
    assert.equal(certaintyShare(0, fading), 0)
    assert.equal(certaintyShare(1, fading), 0)
    assert.ok(Math.abs(certaintyShare(0.01, fading) - Math.sqrt(0.0396)) < 1e-12)
    // no power, no fading: a pool fitted without it is the pool it was
    for (const p of [0, 0.01, 0.5, 0.99, 1]) assert.equal(certaintyShare(p, w), 1)
    // a 1 % model against a one-tick book at 6 ¢ (a crowd shrunk toward even odds): the pull on the
    // long shot shrinks, while at even odds the same book counts in full
    const bucket = { fromMinutesLeft: 1, toMinutesLeft: 1, intercept: 0, model: 0.6, mid: 0.45 }
    const longShot = bookEvidence(fresh(6.05, 94.05), MINUTE)!
    const pull = (model: number, e: typeof longShot, wt: typeof w) =>
      logitOf(poolWithBook(model, e, bucket, wt)) - logitOf(model)
    assert.ok(Math.abs(pull(0.01, longShot, fading)) < 0.25 * Math.abs(pull(0.01, longShot, w)))
    const even = bookEvidence(fresh(52.05, 48.05), MINUTE)!
    assert.equal(pull(0.5, even, fading), pull(0.5, even, w))
  })

  it('prices a Kalshi reading with Kalshi’s pool alone, whatever Polymarket’s says', () => {
    const poly = V2_PARAMS.venuePools?.polymarket
    assert.ok(poly, 'the shipped file has a Polymarket pool')
    const other = {
      ...V2_PARAMS,
      venuePools: { polymarket: { ...poly, book: { spreadPower: 8, agePower: 8, certaintyPower: 4 } } },
    }
    for (const book of [fresh(3.05, 97.05), fresh(52.05, 48.05), fresh(97.05, 3.05)]) {
      const input = inputs(13, 1.0002, book)
      assert.equal(
        settlementMeanProbability(input, other).probabilityUp,
        published(13, 1.0002, book).probabilityUp,
      )
      assert.notEqual(
        settlementMeanProbability({ ...input, venue: 'polymarket' }, other).probabilityUp,
        settlementMeanProbability({ ...input, venue: 'polymarket' }, V2_PARAMS).probabilityUp,
      )
    }
  })

  it('never publishes odds further out than both the model and the book say, on either venue', () => {
    // a long shot the two agree on stays where they put it: the shipped pools pass neither source
    const pools = [...V2_PARAMS.pool, ...(V2_PARAMS.venuePools?.polymarket?.pool ?? [])]
    assert.ok(pools.length >= 8, 'both venues’ pools')
    const grid = [0.001, 0.01, 0.03, 0.2, 0.5, 0.8, 0.97, 0.99, 0.999]
    for (const bucket of pools)
      for (const model of grid)
        for (const mid of grid) {
          const z = logitOf(poolAtWeight(model, mid, bucket, 1))
          const [lm, lb] = [logitOf(model), logitOf(mid)]
          assert.ok(
            z >= Math.min(lm, lb, 0) - 1e-9 && z <= Math.max(lm, lb, 0) + 1e-9,
            `${JSON.stringify(bucket)}: model ${model}, book ${mid} → ${poolAtWeight(model, mid, bucket, 1)}`,
          )
        }
  })

  it('publishes the model alone from a very wide or very stale book', () => {
    for (const feed of FEEDS) {
      const pool = feed === 'live' ? V2_PARAMS.pool : (V2_PARAMS.returnsOnlyPool?.pool ?? [])
      // the minutes whose bucket gives the book a say at all (a fit may leave a bucket to the model alone)
      const heard = [1, 7, 13, 14].filter(
        (minute) =>
          (pool.find((b) => b.fromMinutesLeft <= 15 - minute && 15 - minute <= b.toMinutesLeft)?.mid ?? 0) >
          0,
      )
      assert.ok(heard.length >= 2, `${feed}: minutes where the book is heard: ${heard}`)
      const at = (minute: number, ratio: number, book: BookState | null) =>
        published(minute, ratio, book, feed)
      for (const minute of heard)
        for (const ratio of [0.999, 1, 1.0005]) {
          const alone = at(minute, ratio, null).probabilityUp
          assert.equal(at(minute, ratio, null).modelAloneUp, alone)
          // a tight book against the model's side, so its pull is plain whatever the pool's weights
          const [up, down] = alone > 0.5 ? [30.5, 70.5] : [70.5, 30.5]
          const tight = at(minute, ratio, fresh(up, down)).probabilityUp
          const pull = Math.abs(logitOf(tight) - logitOf(alone))
          // (the main pool's own say is small where the model reads the index from the book: the
          // read has taken most of what the book says, 0.02–1.6 logits here)
          assert.ok(pull > 0.02, `${feed}: the tight book moves the model (${minute}, ${ratio})`)
          const wide = at(minute, ratio, fresh(99.9, 99.9)).probabilityUp
          // ten days old: at most (left / age)^agePower of the book's pull is left
          const stale = at(minute, ratio, { upAskCents: up, downAskCents: down, ageMs: 864_000_000 })
          assert.ok(
            Math.abs(logitOf(wide) - logitOf(alone)) < 0.01 * pull,
            `${feed}: wide ${wide} vs ${alone}`,
          )
          assert.ok(
            Math.abs(logitOf(stale.probabilityUp) - logitOf(alone)) < 0.01 * pull,
            `${feed}: stale ${stale.probabilityUp} vs ${alone}`,
          )
          // a lone ask far above the model's view says only P(up) ≤ 99 ¢: next to nothing
          const lone = at(minute, ratio, fresh(99, null)).probabilityUp
          assert.ok(
            Math.abs(logitOf(lone) - logitOf(alone)) < 0.05 * pull,
            `${feed}: lone ${lone} vs ${alone}`,
          )
        }
    }
  })

  it('pools a reading from one-minute closes with the one-minute pool, any other with its own', () => {
    const minutePool = V2_PARAMS.returnsOnlyPool
    assert.ok(minutePool, 'the shipped file has a one-minute pool')
    const { returnsOnlyPool: _, ...withoutIt } = V2_PARAMS
    for (const book of [fresh(30.5, 70.5), fresh(52.05, 48.05), fresh(70.5, 30.5)]) {
      const minute = inputs(13, 1.0002, book, 'minute')
      const live = inputs(13, 1.0002, book, 'live')
      assert.equal(pricedFromRanges(minute.closes, minute.spotObservedAt, V2_PARAMS), false)
      assert.equal(pricedFromRanges(live.closes, live.spotObservedAt, V2_PARAMS), true)
      // the model alone is the same either way; the pool is not
      const withPool = settlementMeanProbability(minute, V2_PARAMS)
      const withMain = settlementMeanProbability(minute, withoutIt)
      assert.equal(withPool.modelAloneUp, withMain.modelAloneUp)
      assert.notEqual(withPool.probabilityUp, withMain.probabilityUp)
      // and it is the one-minute bucket's: two minutes left, the book's coefficient is that bucket's
      const bucket: PoolBucket | undefined = minutePool.pool.find(
        (b) => b.fromMinutesLeft <= 2 && 2 <= b.toMinutesLeft,
      )
      assert.ok(bucket)
      const e = bookEvidence(book, 2 * MINUTE)
      assert.ok(e)
      assert.equal(
        withPool.probabilityUp,
        poolWithBook(withPool.modelAloneUp ?? Number.NaN, e, bucket, minutePool.book),
      )
      // a reading from whole minutes, or a Polymarket one, never sees it
      assert.equal(
        settlementMeanProbability(live, V2_PARAMS).probabilityUp,
        settlementMeanProbability(live, withoutIt).probabilityUp,
      )
      const poly = { ...minute, venue: 'polymarket' as const }
      assert.equal(
        settlementMeanProbability(poly, V2_PARAMS).probabilityUp,
        settlementMeanProbability(poly, withoutIt).probabilityUp,
      )
    }
  })

  it('moves continuously as the spread widens from 1 ¢ to 99 ¢ and a side vanishes', () => {
    for (const feed of FEEDS)
      for (const minute of [1, 2, 5, 13])
        for (const ratio of [0.9995, 1, 1.0003]) {
          const widening = tenths(50.5, 99.9).map((a) => fresh(a, a))
          const vanishing = [...tenths(50.5, 100).map((d) => fresh(99.9, d)), fresh(99.9, null)]
          const step = Math.max(
            largestStep(minute, ratio, widening, feed),
            largestStep(minute, ratio, vanishing, feed),
          )
          assert.ok(step <= STEP_BOUND[feed], `${feed}, minute ${minute}, S/K ${ratio}: a step of ${step}`)
          // the side's vanishing is the limit of its ask reaching 100 ¢: no step at all
          assert.equal(
            published(minute, ratio, fresh(99.9, 100), feed).probabilityUp,
            published(minute, ratio, fresh(99.9, null), feed).probabilityUp,
          )
        }
  })

  it('moves continuously as a 1 ¢ book slides to the edge and its far side vanishes', () => {
    for (const feed of FEEDS)
      for (const minute of [1, 2, 5, 13])
        for (const ratio of [0.9995, 1, 1.0003]) {
          // both asks move a tick: the mid slides from 50 ¢ to 99.4 ¢ at 1 ¢ wide, then the down ask
          // falls to its last tick, the up ask climbs to 100 ¢, and the up side vanishes
          const path = [
            ...tenths(50.5, 99.9).map((up) => fresh(up, Math.round((101 - up) * 10) / 10)),
            ...tenths(0.1, 1.1)
              .reverse()
              .map((down) => fresh(99.9, down)),
            fresh(100, 0.1),
            fresh(null, 0.1),
          ]
          const step = largestStep(minute, ratio, path, feed)
          assert.ok(step <= STEP_BOUND[feed], `${feed}, minute ${minute}, S/K ${ratio}: a step of ${step}`)
          // the up side vanishing is the limit of its ask reaching 100 ¢: no step at all
          assert.equal(
            published(minute, ratio, fresh(100, 0.1), feed).probabilityUp,
            published(minute, ratio, fresh(null, 0.1), feed).probabilityUp,
          )
        }
  })
})

describe('a crowd that quotes late', () => {
  const poly = V2_PARAMS.venuePools?.polymarket
  assert.ok(poly, 'the shipped file has a Polymarket pool')
  const shifting = {
    ...V2_PARAMS,
    venuePools: { polymarket: { ...poly, book: { ...poly.book, lagShift: true } } },
  }
  const asQuoted = {
    ...V2_PARAMS,
    venuePools: { polymarket: { ...poly, book: { ...poly.book, lagShift: false } } },
  }
  const LAG = 10
  /** A Polymarket reading whose spot stood `moved` (relative) lower LAG seconds before the book. */
  const lateReading = (minute: number, book: BookState, moved = 0.0004): ModelInputs => {
    const input = inputs(minute, 1.0001, book)
    const spots = Array.from({ length: 16 }, (_, s) => input.spotDollars * (1 - (moved * s) / LAG))
    return { ...input, venue: 'polymarket', spotsBeforeBook: spots, crowdLagSeconds: LAG }
  }
  /** the model alone at another spot: the book never reaches it */
  const aloneAt = (input: ModelInputs, spotDollars: number) =>
    settlementMeanProbability({ ...input, spotDollars }, V2_PARAMS).modelAloneUp as number
  /** A 1 ¢ book centred on p. */
  const around = (p: number): BookState => fresh(p * 100 + 0.5, (1 - p) * 100 + 0.5)

  it('moves each ask by the shift in log-odds, and leaves a side without an offer without one', () => {
    const book = fresh(40, 61)
    assert.deepEqual(shiftedBook(book, 0), book)
    const up = shiftedBook(book, 0.5)
    assert.ok(Math.abs((up.upAskCents as number) / 100 - 1 / (1 + Math.exp(-(logitOf(0.4) + 0.5)))) < 1e-12)
    assert.ok(
      Math.abs(1 - (up.downAskCents as number) / 100 - 1 / (1 + Math.exp(-(logitOf(0.39) + 0.5)))) < 1e-12,
    )
    assert.ok((up.upAskCents as number) > 40 && (up.downAskCents as number) < 61, 'both sides move up')
    assert.deepEqual(shiftedBook(fresh(100, null), -0.7), fresh(100, null))
    assert.deepEqual(shiftedBook(fresh(null, 100), 0.7), fresh(null, 100))
  })

  it('reads a late crowd’s book as the book it would quote now', () => {
    for (const minute of [3, 9, 13]) {
      const probe = lateReading(minute, around(0.5))
      const then = aloneAt(probe, probe.spotsBeforeBook?.[LAG] as number)
      const now = aloneAt(probe, probe.spotDollars)
      assert.ok(now - then > 0.02, `minute ${minute}: the spot's move matters (${then} → ${now})`)
      // a crowd that quotes exactly the model of LAG seconds ago, read with the shift, is the crowd
      // that quotes the model now
      const late = lateReading(minute, around(then))
      const onTime = { ...late, book: around(now), crowdLagSeconds: 0 }
      const shifted = settlementMeanProbability(late, shifting).probabilityUp
      const current = settlementMeanProbability(onTime, shifting).probabilityUp
      assert.ok(Math.abs(shifted - current) < 0.002, `minute ${minute}: ${shifted} against ${current}`)
      const unshifted = settlementMeanProbability(late, asQuoted).probabilityUp
      assert.ok(
        Math.abs(unshifted - current) > 3 * Math.abs(shifted - current),
        'as quoted, the book pulls back',
      )
    }
  })

  it('reads the book as quoted where the spot at the lag is unknown, on Kalshi, or where the file does not shift', () => {
    const late = lateReading(11, around(0.4))
    const quoted = settlementMeanProbability(late, asQuoted).probabilityUp
    const unknown = [...(late.spotsBeforeBook ?? [])]
    unknown[LAG] = null
    assert.equal(
      settlementMeanProbability({ ...late, spotsBeforeBook: unknown }, shifting).probabilityUp,
      quoted,
    )
    const { venue: _venue, ...kalshi } = late
    assert.equal(
      settlementMeanProbability(kalshi, shifting).probabilityUp,
      settlementMeanProbability(kalshi, asQuoted).probabilityUp,
    )
    assert.notEqual(settlementMeanProbability(late, shifting).probabilityUp, quoted)
  })

  it('has the engine measure the lag where the shipped file reads it: Polymarket’s book, and Kalshi’s for the index read', () => {
    const shipped = createSettlementMeanModel(V2_PARAMS)
    assert.equal(V2_PARAMS.bookReadAtLag, true)
    assert.equal(shipped.readsCrowdLag?.('polymarket'), true)
    assert.equal(shipped.readsCrowdLag?.('kalshi'), true)
    assert.equal(shipped.readsCrowdLag?.(undefined), true)
    assert.equal(createSettlementMeanModel(asQuoted).readsCrowdLag?.('polymarket'), false)
    // a file that reads Kalshi's book at the reading's spot, or does not read it, measures no Kalshi lag
    const { bookReadAtLag: _, ...atSpot } = V2_PARAMS
    assert.equal(createSettlementMeanModel(atSpot).readsCrowdLag?.('kalshi'), false)
    const { bookRead: __, ...unread } = V2_PARAMS
    assert.equal(createSettlementMeanModel(unread).readsCrowdLag?.('kalshi'), false)
  })

  it('moves continuously as a late crowd’s side vanishes', () => {
    for (const minute of [2, 13]) {
      const path = [...tenths(50.5, 100).map((d) => fresh(99.9, d)), fresh(99.9, null)]
      let prev: number | null = null
      let largest = 0
      for (const book of path) {
        const p = settlementMeanProbability(lateReading(minute, book), shifting).probabilityUp
        if (prev !== null) largest = Math.max(largest, Math.abs(p - prev))
        prev = p
      }
      assert.ok(largest <= STEP_BOUND.live, `minute ${minute}: a step of ${largest}`)
      assert.equal(
        settlementMeanProbability(lateReading(minute, fresh(99.9, 100)), shifting).probabilityUp,
        settlementMeanProbability(lateReading(minute, fresh(99.9, null)), shifting).probabilityUp,
      )
    }
  })
})
